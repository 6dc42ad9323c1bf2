// One block per segment (the first launch for many segments that are long on average): the hardware
// block scheduler balances them; only segments far longer than the rest go to the big list.
#pragma once

#include "common/contract/status.hpp"
#include "common/device/block_reduce.cuh"
#include "common/device/range_fold.cuh"
#include "handwritten/segmented/dependent_launch.cuh"
#include "handwritten/segmented/scratch_layout.cuh"
#include "handwritten/segmented/segmented_shape.cuh"

#include <cstdint>
#include <cuda_runtime.h>

namespace redu::segmented
{
// Unnamed, as in the single file this came from: these kernels are private to adaptive_segmented.cu, the
// one file that includes this header, and keep internal linkage (DESIGN.md, 'internal linkage').
namespace
{

// Appends segment s, longer than one block should stream alone, to the big list: one atomicAdd hands
// out its entry and its chunk numbers together, so entries stay in chunk order.
template <class T>
__device__ void append_big(Scratch<T> ws, std::int64_t s, std::int64_t a, std::int64_t b)
{
  constexpr std::int64_t chunk = elements<T>(chunk_vectors);
  const std::int64_t chunks    = (b - a + chunk - 1) / chunk;
  const unsigned long long packed =
      atomicAdd(ws.big_packed, (1ull << chunk_bits) | static_cast<unsigned long long>(chunks));
  const auto entry          = static_cast<std::int64_t>(packed >> chunk_bits);
  ws.big_list[entry]        = {s, a, b};
  ws.big_first_chunk[entry] = static_cast<std::int64_t>(packed & chunk_mask);
  ws.big_pieces_done[entry] = 0;
}

// First launch when segments are many and long on average (see run()): one block per segment, as in
// Lei Mao's batched kernels and CUB's DeviceSegmentedReduce, and the hardware's block scheduler hands
// segments to SMs with no lists and no atomics. Only segments longer than `split_above` elements, which
// would hold their block for many round trips and leave a long tail, go to the big list for the second
// launch (run_general() says how long that is).
template <int Threads, class T, class ReduceOp, class Segments>
__global__ void __launch_bounds__(Threads) reduce_block_per_segment(const T* __restrict__ in, T* __restrict__ out,
                                                                    Segments segs, std::int64_t split_above,
                                                                    Scratch<T> ws, ReduceOp op)
{
  allow_dependent_launch();
  const std::int64_t s = blockIdx.x;
  const std::int64_t a = segs.begin(s);
  const std::int64_t b = segs.end(s);
  if (b - a > split_above)
  {
    if (threadIdx.x == 0)
    {
      append_big(ws, s, a, b);
    }
    return;
  }
  T partial = fold_range<Threads, unroll>(in, a, b, threadIdx.x, ReadOnlyLoad{}, op);
  partial   = block_reduce<Threads>(partial, op);
  if (threadIdx.x == 0)
  {
    out[s] = partial;
  }
}

// One block of Threads threads per segment (reduce_block_per_segment).
template <int Threads, class T, class ReduceOp, class Segments>
Status launch_block_per_segment(const T* in, T* out, Segments segs, std::int64_t segments, std::int64_t split_above,
                                const Scratch<T>& scratch, cudaStream_t stream)
{
  reduce_block_per_segment<Threads>
      <<<static_cast<unsigned>(segments), Threads, 0, stream>>>(in, out, segs, split_above, scratch, ReduceOp{});
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

} // namespace
} // namespace redu::segmented
