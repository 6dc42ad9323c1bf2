// cub::DeviceReduce::Reduce with a user-supplied operator and initial value: the general entry point
// that Sum/Min/Max specialise. Passing the project's own functors shows how a custom operator plugs
// into CUB, and whether the generic path costs anything against the named ones.
#include "common/contract/typed_reduction.cuh"

#include <cub/device/device_reduce.cuh>

namespace redu
{
namespace
{

template <class T, class ReduceOp>
cudaError_t reduce_with(void* temp, std::size_t& temp_bytes, const Problem& p, cudaStream_t stream)
{
  return cub::DeviceReduce::Reduce(temp, temp_bytes, static_cast<const T*>(p.input), static_cast<T*>(p.output), p.n,
                                   ReduceOp{}, ReduceOp::template identity<T>(), stream);
}

class CubDeviceReduceCustomOp : public TypedReduction<CubDeviceReduceCustomOp>
{
public:
  CubDeviceReduceCustomOp()
      : TypedReduction({.name          = "cub.device_reduce_custom_op",
                        .family        = "cub",
                        .source        = "cub::DeviceReduce::Reduce(op, init) (CCCL)",
                        .idea          = "the generic CUB entry point driven by the project's own operator functors",
                        .kinds         = {Kind::full},
                        .role          = Role::baseline})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem& p) const
  {
    std::size_t bytes = 0;
    static_cast<void>(reduce_with<T, ReduceOp>(nullptr, bytes, p, nullptr));
    return bytes;
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    std::size_t bytes = ws.bytes;
    REDU_CUDA_TRY((reduce_with<T, ReduceOp>(ws.data, bytes, p, stream)));
    return Status::success();
  }
};

REDU_REGISTER(CubDeviceReduceCustomOp);

} // namespace
} // namespace redu
