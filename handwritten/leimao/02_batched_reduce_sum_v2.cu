// Registers Lei Mao's batched reduce v2 (warp shuffles + one shared slot per warp, one 256-thread block
// per row) as "leimao.batched_v2". The kernel and its lesson: 02_batched_reduce_sum_v2.cuh.
#include "common/contract/typed_reduction.cuh"
#include "handwritten/leimao/02_batched_reduce_sum_v2.cuh"

namespace redu::leimao
{
namespace
{

class BatchedV2 : public TypedReduction<BatchedV2>
{
public:
  BatchedV2()
    : TypedReduction({.name          = "leimao.batched_v2",
                      .family        = "leimao",
                      .source        = "Lei Mao, CUDA Reduction (2024), Batched Reduce Sum, batched_reduce_sum_v2",
                      .idea          = "one 256-thread block per row: strided loop, warp shuffles, per-warp slots",
                      .kinds         = {Kind::batched}})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem&) const
  {
    return 0;
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace, cudaStream_t stream) const
  {
    // Every row is full: total = rows * row_length, so no row is ragged.
    return launch_batched_v2<T, ReduceOp>(RowStore<T>{static_cast<T*>(p.output)}, static_cast<const T*>(p.input),
                                          p.segments, p.row_length(), p.n, stream);
  }
};

REDU_REGISTER(BatchedV2);

} // namespace
} // namespace redu::leimao
