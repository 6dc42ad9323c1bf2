// Registers Harris's kernel 7 (reduce6) with the multi-pass driver as "harris.reduce6".
// The kernel and its lesson (idea, flaw removed, requirements, Harris's G80 figures):
// 06_multiple_elements_per_thread.cuh.
#include "handwritten/harris/06_multiple_elements_per_thread.cuh"

namespace redu::harris
{
namespace
{

// About one full wave of 128-thread blocks on an H100 (132 SMs x 16 resident blocks); each thread then
// folds n / (2048 * 256) pairs, e.g. 512 at n = 2^28. Partials: 2048 -> 8 -> 1 in two more passes.
constexpr std::int64_t grid_blocks = 2048;

struct MultipleElementsPerThread
{
  static constexpr PassShape shape = {harris_block_threads, 2 * harris_block_threads, grid_blocks};

  template <class T, class ReduceOp>
  static PassKernel<T, ReduceOp> kernel()
  {
    return reduce6<harris_block_threads, T, ReduceOp>;
  }

  static Info info()
  {
    return {.name   = "harris.reduce6",
            .source = "Harris 2007, Optimizing Parallel Reduction in CUDA, Reduction #7: multiple elements per thread",
            .idea   = "capped grid, grid-stride loop: many elements per thread before the unrolled tree"};
  }
};

using HarrisReduce6 = MultiPassReduction<MultipleElementsPerThread>;
REDU_REGISTER(HarrisReduce6);

} // namespace
} // namespace redu::harris
