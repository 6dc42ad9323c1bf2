// Registers Harris's kernel 6 (reduce5) with the multi-pass driver as "harris.reduce5".
// The kernel and its lesson (idea, flaw removed, requirements, Harris's G80 figures):
// 05_completely_unrolled.cuh.
#include "handwritten/harris/05_completely_unrolled.cuh"

namespace redu::harris
{
namespace
{

struct CompletelyUnrolled
{
  static constexpr PassShape shape = {harris_block_threads, 2 * harris_block_threads, max_grid_blocks};

  template <class T, class ReduceOp>
  static PassKernel<T, ReduceOp> kernel()
  {
    return reduce5<harris_block_threads, T, ReduceOp>;
  }

  static Info info()
  {
    return {.name   = "harris.reduce5",
            .source = "Harris 2007, Optimizing Parallel Reduction in CUDA, Reduction #6: completely unrolled",
            .idea   = "block size as a template parameter: the whole tree is straight-line code"};
  }
};

using HarrisReduce5 = MultiPassReduction<CompletelyUnrolled>;
REDU_REGISTER(HarrisReduce5);

} // namespace
} // namespace redu::harris
