// Registers Lei Mao's batched reduce v1 (shared-memory tree, one 256-thread block per row) as
// "leimao.batched_v1". The kernel and its lesson: 01_batched_reduce_sum_v1.cuh.
#include "common/contract/typed_reduction.cuh"
#include "handwritten/leimao/01_batched_reduce_sum_v1.cuh"

namespace redu::leimao
{
namespace
{

class BatchedV1 : public TypedReduction<BatchedV1>
{
public:
  BatchedV1()
    : TypedReduction({.name          = "leimao.batched_v1",
                      .family        = "leimao",
                      .source        = "Lei Mao, CUDA Reduction (2024), Batched Reduce Sum, batched_reduce_sum_v1",
                      .idea          = "one 256-thread block per row: strided loop, then a shared-memory tree",
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
    const auto* in             = static_cast<const T*>(p.input);
    auto* out                  = static_cast<T*>(p.output);
    const std::size_t row_size = static_cast<std::size_t>(p.row_length());
    return for_each_row_slice(p.segments, [&](std::int64_t first_row, unsigned int blocks) {
      batched_reduce_v1<threads_per_batch><<<blocks, threads_per_batch, 0, stream>>>(
          out, in, row_size, static_cast<std::size_t>(first_row), ReduceOp{});
    });
  }
};

REDU_REGISTER(BatchedV1);

} // namespace
} // namespace redu::leimao
