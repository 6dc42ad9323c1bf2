// Transform-reduce, sum of squares (x -> x * x under +), the two library ways:
// cub::DeviceReduce::TransformReduce fuses the transform into CUB's load, so it reads the input once;
// thrust::transform_reduce does the same through Thrust and returns the value to the host (a device-
// to-host copy and a stream synchronisation inside every timed call, plus one small copy back to the
// problem's output). Thrust's temporary storage comes from the workspace (thrust_on_workspace.cuh).
#include "common/contract/typed_reduction.cuh"

#include <cub/device/device_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/transform_reduce.h>

#include "thrust_on_workspace.cuh"

namespace redu
{
namespace
{

struct Square
{
  template <class T>
  __host__ __device__ T operator()(const T& x) const
  {
    return SumSquaresOp::transform(x);
  }
};

using SumSquaresOnly = OpList<SumSquaresOp>;

template <class T>
cudaError_t cub_sum_squares(void* temp, std::size_t& temp_bytes, const Problem& p, cudaStream_t stream)
{
  return cub::DeviceReduce::TransformReduce(temp, temp_bytes, static_cast<const T*>(p.input), static_cast<T*>(p.output),
                                            p.n, SumSquaresOp{}, Square{}, T(0), stream);
}

class CubTransformReduce : public TypedReduction<CubTransformReduce, AllTypes, SumSquaresOnly>
{
public:
  CubTransformReduce()
      : TypedReduction({.name          = "cub.transform_reduce",
                        .family        = "cub",
                        .source        = "cub::DeviceReduce::TransformReduce (CCCL)",
                        .idea          = "a transform fused into the reduction's loads: sum of squares in one read",
                        .kinds         = {Kind::full},
                        .role          = Role::baseline})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem& p) const
  {
    std::size_t bytes = 0;
    static_cast<void>(cub_sum_squares<T>(nullptr, bytes, p, nullptr));
    return bytes;
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    std::size_t bytes = ws.bytes;
    REDU_CUDA_TRY(cub_sum_squares<T>(ws.data, bytes, p, stream));
    return Status::success();
  }
};

class ThrustTransformReduce : public TypedReduction<ThrustTransformReduce, AllTypes, SumSquaresOnly>
{
public:
  ThrustTransformReduce()
      : TypedReduction({.name          = "thrust.transform_reduce",
                        .family        = "thrust",
                        .source        = "thrust::transform_reduce(thrust::cuda::par.on(stream), ...) (CCCL)",
                        .idea          = "sum of squares in one Thrust call; synchronises to return the value",
                        .kinds         = {Kind::full},
                        .role          = Role::baseline,
                        .graph_capture = false})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem& p) const
  {
    std::size_t bytes = 0;
    static_cast<void>(cub_sum_squares<T>(nullptr, bytes, p, nullptr));
    return thrust_workspace_bytes(bytes);
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    const auto* in = static_cast<const T*>(p.input);
    return thrust_to_output<T>(p, ws, stream, "thrust::transform_reduce", [&](const auto& policy) {
      return thrust::transform_reduce(policy, in, in + p.n, Square{}, T(0), SumSquaresOp{});
    });
  }
};

REDU_REGISTER(CubTransformReduce);
REDU_REGISTER(ThrustTransformReduce);

} // namespace
} // namespace redu
