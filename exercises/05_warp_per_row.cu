/* Exercise: a warp per row, for many short rows.                         docs/course.md, lesson 6
 *
 * Task: write the body of warp_per_row below, a batched reduction: `rows` equal rows of `row_length`
 * contiguous elements, one output each. Each warp of the grid takes a row, its 32 lanes fold the row's
 * elements lane, lane + 32, ... into a register, the warp combines its 32 values with shuffles, and lane
 * 0 writes the row's value; then the warp moves on by the grid's warp count, until no row is left.
 * The project's solution for short rows is segmented.adaptive, which goes further (below).
 *
 * The flaw of the previous step, to remove: one block per row (leimao.batched_v2, handwritten/leimao/
 * 02_batched_reduce_sum_v2.cuh). A row of 8 elements gives 8 of the block's 256 threads a load; the
 * other 248 wait, and every row pays a block-wide barrier and a block's launch share.
 *
 * Hint: the warp's index is (blockIdx.x * blockDim.x + threadIdx.x) / 32 and its lane threadIdx.x % 32;
 * the grid has gridDim.x * blockDim.x / 32 warps. All lanes of a warp stay on the same row, so every
 * lane reaches the full-mask shuffles (value = op(value, __shfl_xor_sync(0xffffffff, value, mask)) for
 * mask = 16, 8, 4, 2, 1 leaves the result in every lane). An empty row (row_length 0) writes the
 * identity. Index with 64 bits: rows * row_length may exceed 2^31.
 * What this leaves for later: a row of 8 still gives 24 of 32 lanes nothing to load; segmented.adaptive
 * packs 2^k lanes per row (handwritten/segmented/pow2_rows.cuh).
 *
 * Done: set kernel_written = true. Until then every call is refused with a message naming this file.
 * Test: ./build-student/tests/reduce_tests --gtest_filter='*exercise_warp_per_row*'
 * Time: ./build-student/bench/reduce_bench --impl=exercise.warp_per_row,leimao.batched_v2,segmented.adaptive,cub.segmented_reduce --types=f32 --ops=sum --sweep=quick
 *       (the quick sweep's rows hold 2^22 elements in all: the default sweep's single row of 2^28 would keep
 *       one warp busy for seconds a call)
 */
#include "exercises/exercise.cuh"

#include <cstdint>

namespace redu::exercise
{
namespace
{

constexpr int block_threads       = 256;                   // 8 warps
constexpr std::int64_t max_blocks = std::int64_t{1} << 20; // beyond this many blocks' warps, warps loop over rows

// ---- TODO: your code begins here ----
constexpr bool kernel_written = false; // set to true once warp_per_row below is written

// rows x row_length elements of `in` -> rows values in `out`. Launched with block_threads threads per block.
template <class T, class ReduceOp>
__global__ void __launch_bounds__(block_threads)
    warp_per_row(const T* __restrict__ in, std::int64_t rows, std::int64_t row_length, T* __restrict__ out, ReduceOp op)
{
  // Each warp takes rows warp, warp + warps, ...: its lanes fold the row, shuffles combine them, and
  // lane 0 writes out[row].
}
// ---- TODO: your code ends here ----

class WarpPerRow : public Exercise<WarpPerRow>
{
public:
  WarpPerRow()
    : Exercise({.name   = "exercise.warp_per_row",
                .source = "course exercise: CUB's warp per short segment (solution: segmented.adaptive)",
                .idea   = "the student's batched rows: a warp per row, shuffles, warps loop over the rows",
                .kinds  = {Kind::batched}},
               "exercises/05_warp_per_row.cu", kernel_written)
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const { return 0; }

  template <class T, class ReduceOp> Status launch(const Problem& p, Workspace, cudaStream_t stream) const
  {
    constexpr std::int64_t rows_per_block = block_threads / 32;
    const std::int64_t wanted             = (p.segments + rows_per_block - 1) / rows_per_block;
    const auto blocks                     = static_cast<unsigned>(wanted < max_blocks ? wanted : max_blocks);
    warp_per_row<<<blocks, block_threads, 0, stream>>>(static_cast<const T*>(p.input), p.segments, p.row_length(),
                                                       static_cast<T*>(p.output), ReduceOp{});
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }
};

REDU_REGISTER(WarpPerRow);

} // namespace
} // namespace redu::exercise
