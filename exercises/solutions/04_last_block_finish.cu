/* Exercise: one launch, finished by the last block to arrive (a grid ticket).  docs/course.md, lesson 5
 *
 * Task: write the finish of last_block_finish below. Its first line, given, folds this block's tiles of
 * the input with 16-byte loads and reduces them across the block (block_fold, common/device/
 * range_fold.cuh: the loop of the previous exercise, tuned). Then: thread 0 writes the block's partial
 * to partials[blockIdx.x] and takes a ticket from the counter `ticket`; the block that draws the last
 * ticket reduces all partials in index order, writes *out, and sets the counter back to 0 for the next
 * call. The project's solution is modern.last_block.
 *
 * The flaw of the previous step, to remove: two launches (the exercise before this one). A small input
 * pays the launch latency twice, and the second launch waits for the slowest block of the first.
 *
 * Hint: the ticket is one read-modify-write at device scope that both publishes and acquires:
 *   cuda::atomic_ref<unsigned, cuda::thread_scope_device> counter(*ticket);
 *   counter.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1   // true in the last block only
 * Release orders this block's partial before its ticket; acquire lets the last block see every partial
 * released before. Hand the answer to the block's other threads through a __shared__ bool and a
 * __syncthreads() (which also separates the two block reductions, in block_fold and block_fold_all,
 * that share their shared slots). Read the partials at L2 (CoherentLoad, or __ldcg): they were written
 * in this launch, and the read-only path may be stale. block_fold_all<block_threads, unroll>(partials, gridDim.x, CoherentLoad{}, op) folds them all in
 * one block. A grid of one block needs no ticket. The project's form is common/device/grid_ticket.cuh.
 *
 * Done: set kernel_written = true. Until then every call is refused with a message naming this file.
 * Test: ./build-student/tests/reduce_tests --gtest_filter='*exercise_last_block*'
 * Time: ./build-student/bench/reduce_bench --impl=exercise.last_block,exercise.vec_two_pass,modern.last_block,cub.device_reduce --types=f32 --ops=sum
 */
#include "common/device/range_fold.cuh"
#include "exercises/exercise.cuh"

#include <cstdint>
#include <cuda/atomic>

namespace redu::exercise
{
namespace
{

constexpr int block_threads           = 256;
constexpr int unroll                  = 4;    // 16-byte loads in flight per thread
constexpr std::int64_t max_blocks     = 1024; // the grid, at most: the last block folds this many partials
constexpr std::size_t partials_offset = 16;   // the workspace: the ticket counter, then the partials from here

// ---- TODO: your code begins here ----
constexpr bool kernel_written = true; // set to true once last_block_finish below is written

// n elements of `in` -> *out, in one launch of gridDim.x blocks of block_threads threads. Block b folds
// the tiles [b * tiles_per_block, (b + 1) * tiles_per_block). `partials` has a place for every block;
// `ticket` is 0 when the launch starts and must be 0 again when it ends.
template <class T, class ReduceOp>
__global__ void __launch_bounds__(block_threads)
    last_block_finish(const T* __restrict__ in, std::int64_t n, std::int64_t tiles_per_block, T* __restrict__ out,
                      T* partials, unsigned* ticket, ReduceOp op)
{
  T value = block_fold<block_threads, unroll>(in, n, blockIdx.x, tiles_per_block, ReadOnlyLoad{}, op); // given
  if (gridDim.x == 1)
  {
    if (threadIdx.x == 0)
    {
      *out = value;
    }
    return;
  }

  __shared__ bool is_last;
  if (threadIdx.x == 0)
  {
    partials[blockIdx.x] = value;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> counter(*ticket);
    is_last = counter.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1; // publish; the last acquires
  }
  __syncthreads(); // every thread learns is_last, and sees what thread 0 acquired
  if (!is_last)
  {
    return;
  }
  value = block_fold_all<block_threads, unroll>(partials, gridDim.x, CoherentLoad{}, op); // index order
  if (threadIdx.x == 0)
  {
    *out    = value;
    *ticket = 0; // for the next call
  }
}
// ---- TODO: your code ends here ----

class LastBlockFinish : public Exercise<LastBlockFinish>
{
public:
  LastBlockFinish()
    : Exercise({.name   = "exercise.last_block",
                .source = "course exercise: CUDA Guide threadFenceReduction finish (solution: modern.last_block)",
                .idea   = "the student's single launch: partials, an acq_rel ticket, the last block folds them",
                .kinds  = {Kind::full}},
               "exercises/04_last_block_finish.cu", kernel_written)
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const
  {
    return partials_offset + max_blocks * sizeof(T);
  }

  template <class T, class ReduceOp> Status launch(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    // Tiles of block_threads x unroll packs; at most max_blocks blocks, each a contiguous run of tiles.
    constexpr std::int64_t tile        = std::int64_t{block_threads} * unroll * pack_size<T>; // elements
    const std::int64_t tiles           = p.n > tile ? (p.n + tile - 1) / tile : 1;            // covers every whole pack
    const std::int64_t wanted          = tiles < max_blocks ? tiles : max_blocks;
    const std::int64_t tiles_per_block = (tiles + wanted - 1) / wanted;
    const auto blocks                  = static_cast<unsigned>((tiles + tiles_per_block - 1) / tiles_per_block);
    auto* base                         = static_cast<unsigned char*>(ws.data);
    last_block_finish<<<blocks, block_threads, 0, stream>>>(
        static_cast<const T*>(p.input), p.n, tiles_per_block, static_cast<T*>(p.output),
        reinterpret_cast<T*>(base + partials_offset), reinterpret_cast<unsigned*>(base), ReduceOp{});
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }
};

REDU_REGISTER(LastBlockFinish);

} // namespace
} // namespace redu::exercise
