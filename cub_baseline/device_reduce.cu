// cub::DeviceReduce::Sum / Min / Max: the library baseline every hand-written kernel is compared
// with. Two launches (a grid of partials, then a single block) and a deterministic result.
#include "common/typed_reduction.cuh"

#include <cub/device/device_reduce.cuh>

namespace redu
{
namespace
{

// One call for both the size query (temp == nullptr) and the reduction itself, as CUB intends.
template <class T, class ReduceOp>
cudaError_t device_reduce(void* temp, std::size_t& temp_bytes, const Problem& p, cudaStream_t stream)
{
  const auto* in = static_cast<const T*>(p.input);
  auto* out      = static_cast<T*>(p.output);
  if constexpr (ReduceOp::id == Op::sum)
  {
    return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, p.n, stream);
  }
  else if constexpr (ReduceOp::id == Op::min)
  {
    return cub::DeviceReduce::Min(temp, temp_bytes, in, out, p.n, stream);
  }
  else
  {
    return cub::DeviceReduce::Max(temp, temp_bytes, in, out, p.n, stream);
  }
}

class CubDeviceReduce : public TypedReduction<CubDeviceReduce>
{
public:
  CubDeviceReduce()
      : TypedReduction({.name          = "cub.device_reduce",
                        .family        = "cub",
                        .source        = "cub::DeviceReduce::Sum/Min/Max (CCCL)",
                        .idea          = "the library baseline: tuned tiles, vectorised loads, two passes",
                        .kinds         = {Kind::full},
                        .deterministic = true})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace(const Problem& p) const
  {
    std::size_t bytes = 0;
    // A size query launches nothing and fails only on arguments validate() already checked.
    static_cast<void>(device_reduce<T, ReduceOp>(nullptr, bytes, p, nullptr));
    return bytes;
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    std::size_t bytes = ws.bytes;
    REDU_CUDA_TRY((device_reduce<T, ReduceOp>(ws.data, bytes, p, stream)));
    return Status::success();
  }
};

REDU_REGISTER(CubDeviceReduce);

} // namespace
} // namespace redu
