/* Exercise: a vectorised grid-stride loop, finished by a second pass.   docs/course.md, lesson 5
 *
 * Task: write the body of vectorized_partials below. A grid of blocks of 256 threads walks the whole
 * array; each thread folds its share into registers with 16-byte loads, keeping `unroll` (4) of them in
 * flight; the block reduces its threads' values (block_reduce: given) and thread 0 writes
 * out[blockIdx.x]. The host code at the end of this file launches it twice: over the input, then one
 * block over the partials. The project's solution is modern.vec_two_pass (which sizes its grid from the
 * GPU's occupancy and gives each block a contiguous run of tiles).
 *
 * The flaw of the previous step, to remove: basics.two_pass_grid_stride (handwritten/basics/
 * two_pass_grid_stride.cu) issues one 4-byte load per loop trip and adds it before the next trip, so a
 * thread has one load in flight. A memory-bound kernel's speed is the bytes in flight per SM divided by
 * the memory's latency: 4 bytes a thread cannot fill an H200's HBM.
 *
 * Hint: cut the array at its first 16-byte boundary: `head` elements before it (fewer than a pack; the
 * input is only aligned to its element), then whole packs of 16 bytes (Pack<T>, pack_size<T> elements;
 * common/device/vector_load.cuh), then a tail of fewer than a pack. Let the first threads of the grid
 * take the head and the tail one element each. In the body, thread k loads packs k, k + stride, ...,
 * k + (unroll - 1) * stride (stride: the grid's threads) into an array before it folds any of them
 * (fold_pack folds one pack), into `unroll` separate accumulators; then one pack per trip for what is
 * left. `__ldg(&pack_pointer->v)` loads 16 bytes through the read-only path.
 *
 * Done: set kernel_written = true. Until then every call is refused with a message naming this file.
 * Test: ./build-student/tests/reduce_tests --gtest_filter='*exercise_vec_two_pass*'
 * Time: ./build-student/bench/reduce_bench --impl=exercise.vec_two_pass,modern.vec_two_pass,basics.two_pass_grid_stride,cub.device_reduce --types=f32 --ops=sum
 */
#include "common/device/block_reduce.cuh"
#include "common/device/vector_load.cuh"
#include "exercises/exercise.cuh"

#include <cstdint>

namespace redu::exercise
{
namespace
{

constexpr int block_threads       = 256;
constexpr int unroll              = 4;    // 16-byte loads in flight per thread
constexpr std::int64_t max_blocks = 1024; // the first pass's grid, at most; the second pass is one block

// ---- TODO: your code begins here ----
constexpr bool kernel_written = true; // set to true once vectorized_partials below is written

// n elements of `in` (aligned to T only) -> one partial per block in `out`. Launched with block_threads
// threads per block; block_reduce<block_threads>(value, op) reduces one value per thread (valid in thread 0).
template <class T, class ReduceOp>
__global__ void __launch_bounds__(block_threads)
    vectorized_partials(const T* __restrict__ in, std::int64_t n, T* __restrict__ out, ReduceOp op)
{
  using P = Pack<T>;
  // The cut: `head` elements up to the first 16-byte boundary, `packs` whole packs, then the tail. The
  // input is aligned to its element, so (16 - misalignment) is a whole number of elements.
  const auto misalignment  = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(in) % sizeof(P));
  constexpr auto bytes     = static_cast<std::int64_t>(sizeof(T));
  std::int64_t head        = misalignment == 0 ? 0 : (static_cast<std::int64_t>(sizeof(P)) - misalignment) / bytes;
  head                     = head < n ? head : n;
  const P* body            = reinterpret_cast<const P*>(in + head);
  const std::int64_t packs = (n - head) / pack_size<T>;
  const std::int64_t tail  = head + packs * pack_size<T>; // the first element after the last whole pack

  const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * block_threads + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * block_threads;
  T acc[unroll];
#pragma unroll
  for (int u = 0; u < unroll; ++u)
  {
    acc[u] = ReduceOp::template identity<T>();
  }
  if (thread < head)
  {
    acc[0] = op(acc[0], in[thread]);
  }
  if (thread < n - tail)
  {
    acc[1] = op(acc[1], in[tail + thread]);
  }

  // Whole rounds: `unroll` independent 16-byte loads issued before the first is used.
  std::int64_t k = thread;
  for (; k + (unroll - 1) * stride < packs; k += unroll * stride)
  {
    P v[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
    {
      v[u] = P{__ldg(&body[k + u * stride].v)};
    }
#pragma unroll
    for (int u = 0; u < unroll; ++u)
    {
      acc[u] = op(acc[u], fold_pack(v[u], op));
    }
  }
  // Fewer than `unroll` packs left for this thread: one per trip.
  for (; k < packs; k += stride)
  {
    acc[0] = op(acc[0], fold_pack(P{__ldg(&body[k].v)}, op));
  }

#pragma unroll
  for (int u = 1; u < unroll; ++u)
  {
    acc[0] = op(acc[0], acc[u]);
  }
  const T value = block_reduce<block_threads>(acc[0], op);
  if (threadIdx.x == 0)
  {
    out[blockIdx.x] = value;
  }
}
// ---- TODO: your code ends here ----

class VectorizedTwoPass : public Exercise<VectorizedTwoPass>
{
public:
  VectorizedTwoPass()
    : Exercise({.name   = "exercise.vec_two_pass",
                .source = "course exercise: NVIDIA's vectorized-access pro tip (solution: modern.vec_two_pass)",
                .idea   = "the student's grid-stride loop of 16-byte loads, 4 in flight per thread; second pass",
                .kinds  = {Kind::full}},
               "exercises/03_vectorized_two_pass.cu", kernel_written)
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const
  {
    return max_blocks * sizeof(T);
  }

  template <class T, class ReduceOp> Status launch(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    // A grid sized to the data: one round of `unroll` packs per thread while that takes fewer than
    // max_blocks blocks, and max_blocks blocks that loop beyond.
    constexpr std::int64_t per_block = std::int64_t{block_threads} * unroll * pack_size<T>;
    const std::int64_t wanted        = (p.n + per_block - 1) / per_block;
    const int blocks                 = static_cast<int>(wanted < 1 ? 1 : (wanted < max_blocks ? wanted : max_blocks));
    const auto* in                   = static_cast<const T*>(p.input);
    auto* out                        = static_cast<T*>(p.output);
    if (blocks == 1)
    {
      vectorized_partials<<<1, block_threads, 0, stream>>>(in, p.n, out, ReduceOp{});
      REDU_CUDA_TRY(cudaPeekAtLastError());
      return Status::success();
    }
    auto* partials = static_cast<T*>(ws.data);
    vectorized_partials<<<blocks, block_threads, 0, stream>>>(in, p.n, partials, ReduceOp{});
    REDU_CUDA_TRY(cudaPeekAtLastError());
    vectorized_partials<<<1, block_threads, 0, stream>>>(partials, std::int64_t{blocks}, out, ReduceOp{});
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }
};

REDU_REGISTER(VectorizedTwoPass);

} // namespace
} // namespace redu::exercise
