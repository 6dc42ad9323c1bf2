// Registers Harris's kernel 1 (reduce0) with the multi-pass driver as "harris.reduce0".
// The kernel and its lesson (idea, flaw removed, requirements, Harris's G80 figures):
// 00_interleaved_divergent.cuh.
#include "handwritten/harris/00_interleaved_divergent.cuh"

namespace redu::harris
{
namespace
{

struct InterleavedDivergent
{
  static constexpr PassShape shape = {harris_block_threads, harris_block_threads, max_grid_blocks};

  template <class T, class ReduceOp>
  static PassKernel<T, ReduceOp> kernel()
  {
    return reduce0<T, ReduceOp>;
  }

  static Info info()
  {
    return {
      .name = "harris.reduce0",
      .source =
        "Harris 2007, Optimizing Parallel Reduction in CUDA, Reduction #1: interleaved addressing, divergent branching",
      .idea = "textbook tree: tid % (2s) picks the active threads, so every warp diverges"};
  }
};

using HarrisReduce0 = MultiPassReduction<InterleavedDivergent>;
REDU_REGISTER(HarrisReduce0);

} // namespace
} // namespace redu::harris
