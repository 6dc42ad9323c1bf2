// Registers Harris's kernel 4 (reduce3) with the multi-pass driver as "harris.reduce3".
// The kernel and its lesson (idea, flaw removed, requirements, Harris's G80 figures):
// 03_first_add_during_load.cuh.
#include "handwritten/harris/03_first_add_during_load.cuh"

namespace redu::harris
{
namespace
{

struct FirstAddDuringLoad
{
  static constexpr PassShape shape = {harris_block_threads, 2 * harris_block_threads, max_grid_blocks};

  template <class T, class ReduceOp>
  static PassKernel<T, ReduceOp> kernel()
  {
    return reduce3<T, ReduceOp>;
  }

  static Info info()
  {
    return {.name   = "harris.reduce3",
            .source = "Harris 2007, Optimizing Parallel Reduction in CUDA, Reduction #4: first add during load",
            .idea   = "each thread adds two elements while loading: half the blocks, no idle threads"};
  }
};

using HarrisReduce3 = MultiPassReduction<FirstAddDuringLoad>;
REDU_REGISTER(HarrisReduce3);

} // namespace
} // namespace redu::harris
