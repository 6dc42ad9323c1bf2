// cub::DeviceReduce::Sum / Min / Max / ArgMin / ArgMax: the library baseline every hand-written
// kernel is compared with. Two launches (a grid of partials, then a single block), deterministic.
// ArgMin/ArgMax use the CCCL 3 overload with separate value and index outputs and 64-bit counts;
// on ties they report the first occurrence.
// Float Min/Max: cub::DeviceReduce::Min seeds the reduction with numeric_limits<T>::max(), which for
// floats is FLT_MAX, not the identity +inf (problem.hpp): the min of an all-(+inf) input would come out
// FLT_MAX. Floats therefore call Reduce with CUB's own cuda::minimum / cuda::maximum and the contract's
// identity, which dispatches to the same kernels; integers keep Min/Max (their seed is the identity).
#include "common/contract/typed_reduction.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda/functional>

#include <type_traits>

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
  else if constexpr (ReduceOp::id == Op::min && std::is_floating_point_v<T>)
  {
    return cub::DeviceReduce::Reduce(temp, temp_bytes, in, out, p.n, ::cuda::minimum<>{}, MinOp::identity<T>(), stream);
  }
  else if constexpr (ReduceOp::id == Op::min)
  {
    return cub::DeviceReduce::Min(temp, temp_bytes, in, out, p.n, stream);
  }
  else if constexpr (ReduceOp::id == Op::max && std::is_floating_point_v<T>)
  {
    return cub::DeviceReduce::Reduce(temp, temp_bytes, in, out, p.n, ::cuda::maximum<>{}, MaxOp::identity<T>(), stream);
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
// here rather than left to CUB's empty-problem path ({1, numeric max}). A kernel, not a copy from host
// memory, so that the call can be captured into a CUDA graph.
template <class T, class ReduceOp>
__global__ void write_empty_arg(T* out, std::int64_t* index)
{
  *out   = ReduceOp::template identity<T>();
  *index = -1;
}

template <class T, class ReduceOp>
Status write_empty_arg_result(const Problem& p, cudaStream_t stream)
{
  write_empty_arg<T, ReduceOp><<<1, 1, 0, stream>>>(static_cast<T*>(p.output), p.indices);
  REDU_CUDA_TRY(cudaPeekAtLastError());
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
                        .role          = Role::baseline})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem& p) const
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
