// Modern family, lesson 1: the two-pass reduction rewritten for what a Hopper memory system wants.
//
// Idea: a reduction is a stream of loads, so the kernel is shaped around keeping enough bytes in flight.
// Each thread issues 16-byte loads (LDG.E.128), eight independent ones back to back before touching the
// first, into eight accumulators: a block of 256 threads reads a 32 KB tile per round. The grid is sized
// to the data: one tile per block while the data is small (every thread issues all its loads at once,
// one memory round trip, few partials), and for large inputs contiguous runs of tiles per block, at most
// 64 waves of what the device holds at once (occupancy API x SM count, queried once per device), so the
// hardware block scheduler balances the SMs instead of a persistent grid waiting for its slowest block.
// Loads take the read-only path in the form chosen by size (InputLoad, common/device/vector_load.cuh).
// Warps reduce by butterfly shuffles (one REDUX instruction for int32), blocks through one shared slot
// per warp, and a second launch of one block reduces the partials.
// Flaw removed (vs basics.two_pass_grid_stride and moderngpu.reduce): 4-byte loads, one dependent load
// per loop trip, a fixed grid that is too large for small n.
// Flaw kept: two launches; small inputs pay the launch latency twice (lessons 2-5 remove it).
// Requirements: any n (64-bit), input aligned to its element size (an unaligned head and a short tail
// are read element-wise around the 16-byte body). Deterministic: the order depends only on n, the input
// address modulo 16 and the device's occupancy (which fixes the launch shape).
// Source: the tile structure of CUB's DeviceReduce agent, NVIDIA's "CUDA Pro Tip: Increase Performance
// with Vectorized Memory Access", moderngpu's tile per CTA (seed 003) with vectors; the shape constants are in
// modern_shape.cuh, the measurements behind them in handwritten/modern/DESIGN.md.
#include "common/contract/typed_reduction.cuh"
#include "common/device/range_fold.cuh"
#include "handwritten/modern/grid_shape.cuh"

namespace redu::modern
{
namespace
{

template <class T, class ReduceOp, bool EvictFirst>
__global__ void __launch_bounds__(block_threads)
    vectorized_partials(const T* __restrict__ in, std::int64_t n, std::int64_t tiles_per_block,
                        T* __restrict__ out, ReduceOp op)
{
  const T value = block_fold<block_threads, unroll>(in, n, blockIdx.x, tiles_per_block, InputLoad<EvictFirst>{}, op);
  if (threadIdx.x == 0)
  {
    out[blockIdx.x] = value;
  }
}

class VectorizedTwoPass : public TypedReduction<VectorizedTwoPass>
{
public:
  VectorizedTwoPass()
    : TypedReduction({.name          = "modern.vec_two_pass",
                      .family        = "modern",
                      .source        = "CUB DeviceReduce agent structure; NVIDIA vectorized-access pro tip",
                      .idea          = "16-byte loads, 8 in flight per thread, data-sized grid of tiles; second pass",
                      .kinds         = {Kind::full},
                      .needs         = {.optional = {Feature::l2_cache_hints}}})
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const { return max_grid * sizeof(T); }

  template <class T, class ReduceOp> Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    return with_input_load<T>(p.n, [&](auto evict_first) { // grid_shape.cuh
      return launch<T, ReduceOp, decltype(evict_first)::value>(p, ws, stream);
    });
  }

private:
  template <class T, class ReduceOp, bool EvictFirst>
  static Status launch(const Problem& p, Workspace ws, cudaStream_t stream)
  {
    constexpr auto kernel = vectorized_partials<T, ReduceOp, EvictFirst>;
    LaunchShape shape;
    GridRule rule;
    REDU_TRY(grid_rule(rule));
    REDU_TRY((grid_shape<kernel, block_threads, unroll, T>(p.n, rule, shape)));
    const auto* in = static_cast<const T*>(p.input);
    auto* out      = static_cast<T*>(p.output);
    if (shape.blocks == 1)
    {
      kernel<<<1, block_threads, 0, stream>>>(in, p.n, shape.tiles_per_block, out, ReduceOp{});
      REDU_CUDA_TRY(cudaPeekAtLastError());
      return Status::success();
    }
    auto* partials = static_cast<T*>(ws.data);
    kernel<<<shape.blocks, block_threads, 0, stream>>>(in, p.n, shape.tiles_per_block, partials, ReduceOp{});
    REDU_CUDA_TRY(cudaPeekAtLastError());
    // One block takes every tile of the partials (tiles_per_block = their count is enough); they are
    // few and were just written, so they take the fitting input's plain read-only loads.
    vectorized_partials<T, ReduceOp, false><<<1, block_threads, 0, stream>>>(partials, shape.blocks, shape.blocks, out,
                                                                              ReduceOp{});
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }
};

REDU_REGISTER(VectorizedTwoPass);

} // namespace
} // namespace redu::modern
