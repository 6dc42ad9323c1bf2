// Registers Harris's kernel 3 (reduce2) with the multi-pass driver as "harris.reduce2".
// The kernel and its lesson (idea, flaw removed, requirements, Harris's G80 figures):
// 02_sequential_addressing.cuh.
#include "handwritten/harris/02_sequential_addressing.cuh"

namespace redu::harris
{
namespace
{

struct SequentialAddressing
{
  static constexpr PassShape shape = {harris_block_threads, harris_block_threads, max_grid_blocks};

  template <class T, class ReduceOp>
  static PassKernel<T, ReduceOp> kernel()
  {
    return reduce2<T, ReduceOp>;
  }

  static Info info()
  {
    return {.name   = "harris.reduce2",
            .source = "Harris 2007, Optimizing Parallel Reduction in CUDA, Reduction #3: sequential addressing",
            .idea   = "reversed tree: tid < s adds tid + s, conflict-free, but half the threads idle after the load"};
  }
};

using HarrisReduce2 = MultiPassReduction<SequentialAddressing>;
REDU_REGISTER(HarrisReduce2);

} // namespace
} // namespace redu::harris
