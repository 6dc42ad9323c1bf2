// Registers Harris's kernel 2 (reduce1) with the multi-pass driver as "harris.reduce1".
// The kernel and its lesson (idea, flaw removed, requirements, Harris's G80 figures):
// 01_interleaved_strided_index.cuh.
#include "handwritten/harris/01_interleaved_strided_index.cuh"

namespace redu::harris
{
namespace
{

struct InterleavedStridedIndex
{
  static constexpr PassShape shape = {harris_block_threads, harris_block_threads, max_grid_blocks};

  template <class T, class ReduceOp>
  static PassKernel<T, ReduceOp> kernel()
  {
    return reduce1<T, ReduceOp>;
  }

  static Info info()
  {
    return {.name = "harris.reduce1",
            .source =
              "Harris 2007, Optimizing Parallel Reduction in CUDA, Reduction #2: interleaved addressing, strided index",
            .idea = "no divergence (thread k works on 2sk) but 2s-word strides cause shared-memory bank conflicts"};
  }
};

using HarrisReduce1 = MultiPassReduction<InterleavedStridedIndex>;
REDU_REGISTER(HarrisReduce1);

} // namespace
} // namespace redu::harris
