// cub::DeviceReduce::Sum(in, out, n, cuda::stream_ref{stream}) (CCCL 3.5): the env call as a user writes
// it, with no temporary storage in sight. CUB sizes its storage, takes it from its default memory resource
// (cub/detail/device_memory_resource.cuh: cudaMallocAsync on the stream), runs the same two kernels as
// cub.device_reduce and gives the storage back with cudaFreeAsync, on every call. It is in the study to show
// what that convenience costs inside a timed call, against the same kernels fed from a workspace
// (cub.device_reduce; cub.tuned_* use the env API with the workspace as memory resource).
// Workspace: none. CUDA graphs: both calls are stream-ordered and capturable (they become the graph's
// allocation and free nodes; no cudaFree, which would synchronise), so the call is declared capturable
// (the shared capture-and-replay test passes on an H100).
#include "common/contract/typed_reduction.cuh"

#include <cuda/version>

#if CCCL_VERSION >= 3005000 // needs CCCL 3.5; registers nothing otherwise

#include <cub/device/device_reduce.cuh>
#include <cuda/stream_ref>

namespace redu
{
namespace
{

class CubDeviceReduceEnv : public TypedReduction<CubDeviceReduceEnv, AllTypes, OpList<SumOp>>
{
public:
  CubDeviceReduceEnv()
      : TypedReduction({.name   = "cub.device_reduce_env",
                        .family = "cub",
                        .source = "cub::DeviceReduce::Sum(in, out, n, cuda::stream_ref{stream}) (CCCL 3.5)",
                        .idea   = "the plain env call: CUB allocates and frees its storage (stream-ordered) every call",
                        .kinds  = {Kind::full},
                        .role   = Role::baseline})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem&) const
  {
    return 0;
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace, cudaStream_t stream) const
  {
    REDU_CUDA_TRY(cub::DeviceReduce::Sum(static_cast<const T*>(p.input), static_cast<T*>(p.output), p.n,
                                         ::cuda::stream_ref{stream}));
    return Status::success();
  }
};

REDU_REGISTER(CubDeviceReduceEnv);

} // namespace
} // namespace redu

#else
#include "needs_cccl.hpp"
REDU_REGISTER_ABSENT(device_reduce_env, "cub.device_reduce_env", ::redu::needs_cccl("3.5", "DeviceReduce::Reduce with an execution environment"));
#endif // CCCL_VERSION >= 3005000
