// thrust::reduce on a stream (thrust::cuda::par.on): the one-line answer most code reaches for.
// It returns the value to the host, so every call ends with a device-to-host copy and a stream
// synchronisation; the benchmark's events therefore time the reduction plus that round trip, and
// the result is then written to the problem's output with one more small copy (also timed).
// Thrust's temporary storage comes from the workspace through an allocator, so no cudaMalloc is timed.
#include "common/contract/typed_reduction.cuh"

#include <cub/device/device_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include "thrust_on_workspace.cuh"

namespace redu
{
namespace
{

class ThrustReduce : public TypedReduction<ThrustReduce>
{
public:
  ThrustReduce()
      : TypedReduction({.name          = "thrust.reduce",
                        .family        = "thrust",
                        .source        = "thrust::reduce(thrust::cuda::par.on(stream), ...) (CCCL)",
                        .idea          = "one line of Thrust: CUB underneath, plus a synchronising return to the host",
                        .kinds         = {Kind::full},
                        .role          = Role::baseline,
                        .graph_capture = false})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem& p) const
  {
    // What CUB needs underneath, plus room for Thrust's device-side result and alignment.
    std::size_t bytes = 0;
    static_cast<void>(cub::DeviceReduce::Reduce(nullptr, bytes, static_cast<const T*>(p.input), static_cast<T*>(p.output),
                                                p.n, ReduceOp{}, ReduceOp::template identity<T>()));
    return thrust_workspace_bytes(bytes);
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    const auto* in = static_cast<const T*>(p.input);
    return thrust_to_output<T>(p, ws, stream, "thrust::reduce", [&](const auto& policy) {
      return thrust::reduce(policy, in, in + p.n, ReduceOp::template identity<T>(), ReduceOp{});
    });
  }
};

REDU_REGISTER(ThrustReduce);

} // namespace
} // namespace redu
