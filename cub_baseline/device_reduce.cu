// cub::DeviceReduce::Sum / Min / Max / ArgMin / ArgMax: the library baseline every hand-written
// kernel is compared with. Two launches (a grid of partials, then a single block), deterministic.
// ArgMin/ArgMax use the CCCL 3 overload with separate value and index outputs and 64-bit counts;
// on ties they report the first occurrence.
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
  else if constexpr (ReduceOp::id == Op::max)
  {
    return cub::DeviceReduce::Max(temp, temp_bytes, in, out, p.n, stream);
  }
  else if constexpr (ReduceOp::id == Op::argmin)
  {
    return cub::DeviceReduce::ArgMin(temp, temp_bytes, in, out, p.indices, p.n, stream);
  }
  else
  {
    return cub::DeviceReduce::ArgMax(temp, temp_bytes, in, out, p.indices, p.n, stream);
  }
}

// The contract's answer for an empty argmin/argmax: the identity and index -1 ("no element"), written
// here rather than left to whatever CUB's empty-problem path produces.
template <class T, class ReduceOp>
Status write_empty_arg_result(const Problem& p, cudaStream_t stream)
{
  static const T identity            = ReduceOp::template identity<T>();
  static const std::int64_t no_index = -1;
  REDU_CUDA_TRY(cudaMemcpyAsync(p.output, &identity, sizeof(T), cudaMemcpyHostToDevice, stream));
  REDU_CUDA_TRY(cudaMemcpyAsync(p.indices, &no_index, sizeof(no_index), cudaMemcpyHostToDevice, stream));
  return Status::success();
}

class CubDeviceReduce
    : public TypedReduction<CubDeviceReduce, AllTypes, OpList<SumOp, MinOp, MaxOp, ArgMinOp, ArgMaxOp>>
{
public:
  CubDeviceReduce()
      : TypedReduction({.name          = "cub.device_reduce",
                        .family        = "cub",
                        .source        = "cub::DeviceReduce::Sum/Min/Max/ArgMin/ArgMax (CCCL)",
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
    if constexpr (ReduceOp::id == Op::argmin || ReduceOp::id == Op::argmax)
    {
      if (p.n == 0)
      {
        return write_empty_arg_result<T, ReduceOp>(p, stream);
      }
    }
    std::size_t bytes = ws.bytes;
    REDU_CUDA_TRY((device_reduce<T, ReduceOp>(ws.data, bytes, p, stream)));
    return Status::success();
  }
};

REDU_REGISTER(CubDeviceReduce);

} // namespace
} // namespace redu
