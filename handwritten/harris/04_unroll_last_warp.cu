// Registers Harris's kernel 5 (reduce4) with the multi-pass driver as "harris.reduce4".
// The kernel and its lesson (idea, flaw removed, requirements, Harris's G80 figures):
// 04_unroll_last_warp.cuh.
#include "handwritten/harris/04_unroll_last_warp.cuh"

namespace redu::harris
{
namespace
{

struct UnrollLastWarp
{
  static constexpr PassShape shape = {harris_block_threads, 2 * harris_block_threads, max_grid_blocks};

  template <class T, class ReduceOp>
  static PassKernel<T, ReduceOp> kernel()
  {
    return reduce4<T, ReduceOp>;
  }

  static Info info()
  {
    return {.name   = "harris.reduce4",
            .source = "Harris 2007, Optimizing Parallel Reduction in CUDA, Reduction #5: unroll the last warp",
            .idea   = "last 6 tree steps in warp 0 by shuffles, no barriers (Harris's volatile form races on Volta+)"};
  }
};

using HarrisReduce4 = MultiPassReduction<UnrollLastWarp>;
REDU_REGISTER(HarrisReduce4);

} // namespace
} // namespace redu::harris
