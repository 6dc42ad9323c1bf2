// cub::DeviceReduce::Sum(in, out, n, env) with cuda::execution::tune(selector) (CCCL 3.5): CUB's own
// two-pass reduce with the tile chosen here instead of by CUB's tuning tables. The selector is a stateless
// policy selector returning a cub::ReducePolicy, the type CUB's default selector returns, which is how the env
// dispatch finds it (env_dispatch.cuh, dispatch_with_env_and_tuning: the tuning is looked up by that type).
// Both passes get {threads, items per thread, 4-wide vector loads, BLOCK_REDUCE_WARP_REDUCTIONS, LOAD_LDG},
// CUB's sm_90 choice in all but the tile size, so the result stays run-to-run reproducible.
// The point: the strongest library rival. The sweep registers a few tiles around CUB's default, each a
// baseline of its own (cub.tuned_<threads>x<items>), and the analysis takes the best CUB variant at each n, so
// the hand-written kernels are measured against CUB at its best tile for that size, not at one default.
// CUB's default on sm_60+ (tuning_reduce.cuh, get_two_phase_tuning) is 256 threads x 16 items for 4-byte
// elements and 256 x 8 for 8-byte ones; each variant leaves out the element types whose default it is
// (cub.device_reduce already times those).
// Workspace: CUB's storage for the block partials, served from the caller's workspace (workspace_resource.cuh).
#include "common/contract/typed_reduction.cuh"

#include <cuda/version>

#if CCCL_VERSION >= 3005000 // needs CCCL 3.5; registers nothing otherwise

#include <cub/device/device_reduce.cuh>
#include <cuda/execution>

#include <string>

#include "workspace_resource.cuh"

namespace redu
{
namespace
{

// One fixed tile for both passes, on every architecture.
template <int Threads, int Items>
struct FixedTile
{
  __host__ __device__ constexpr cub::ReducePolicy operator()(::cuda::compute_capability) const
  {
    const cub::ReducePassPolicy pass{Threads, Items, 4, cub::BLOCK_REDUCE_WARP_REDUCTIONS, cub::LOAD_LDG};
    return {pass, pass};
  }
};

template <int Threads, int Items, class T>
cudaError_t sum_tuned(const Problem& p, const WorkspaceResource& resource, cudaStream_t stream)
{
  const auto env = workspace_env(stream, resource, ::cuda::execution::tune(FixedTile<Threads, Items>{}));
  return cub::DeviceReduce::Sum(static_cast<const T*>(p.input), static_cast<T*>(p.output), p.n, env);
}

template <int Threads, int Items, class Types>
class CubTuned : public TypedReduction<CubTuned<Threads, Items, Types>, Types, OpList<SumOp>>
{
public:
  CubTuned()
      : TypedReduction<CubTuned, Types, OpList<SumOp>>(
          {.name   = "cub.tuned_" + std::to_string(Threads) + "x" + std::to_string(Items),
           .family = "cub",
           .source = "cub::DeviceReduce::Sum(in, out, n, env) with cuda::execution::tune(policy selector) (CCCL 3.5)",
           .idea   = "CUB's two passes with a chosen tile: " + std::to_string(Threads) + " threads x "
                   + std::to_string(Items) + " items per thread",
           .kinds  = {Kind::full},
           .role   = Role::baseline})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem& p) const
  {
    return env_workspace_bytes(
      [&](const WorkspaceResource& r) { return sum_tuned<Threads, Items, T>(p, r, nullptr); });
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    return env_run(ws, "cub::DeviceReduce::Sum (tuned)",
                   [&](const WorkspaceResource& r) { return sum_tuned<Threads, Items, T>(p, r, stream); });
  }
};

using FourByteTypes  = TypeList<std::int32_t, float>;  // CUB's default for them: 256 x 16
using EightByteTypes = TypeList<std::int64_t, double>; // CUB's default for them: 256 x 8

using CubTuned256x8  = CubTuned<256, 8, FourByteTypes>;
using CubTuned256x16 = CubTuned<256, 16, EightByteTypes>;
using CubTuned256x32 = CubTuned<256, 32, AllTypes>;
using CubTuned512x8  = CubTuned<512, 8, AllTypes>;
using CubTuned512x16 = CubTuned<512, 16, AllTypes>;
using CubTuned512x32 = CubTuned<512, 32, AllTypes>;
REDU_REGISTER(CubTuned256x8);
REDU_REGISTER(CubTuned256x16);
REDU_REGISTER(CubTuned256x32);
REDU_REGISTER(CubTuned512x8);
REDU_REGISTER(CubTuned512x16);
REDU_REGISTER(CubTuned512x32);

} // namespace
} // namespace redu

#else
#include "needs_cccl.hpp"
REDU_REGISTER_ABSENT(tuned_256x8, "cub.tuned_256x8", ::redu::needs_cccl("3.5", "a tuning policy passed through the execution environment"));
REDU_REGISTER_ABSENT(tuned_256x16, "cub.tuned_256x16", ::redu::needs_cccl("3.5", "a tuning policy passed through the execution environment"));
REDU_REGISTER_ABSENT(tuned_256x32, "cub.tuned_256x32", ::redu::needs_cccl("3.5", "a tuning policy passed through the execution environment"));
REDU_REGISTER_ABSENT(tuned_512x8, "cub.tuned_512x8", ::redu::needs_cccl("3.5", "a tuning policy passed through the execution environment"));
REDU_REGISTER_ABSENT(tuned_512x16, "cub.tuned_512x16", ::redu::needs_cccl("3.5", "a tuning policy passed through the execution environment"));
REDU_REGISTER_ABSENT(tuned_512x32, "cub.tuned_512x32", ::redu::needs_cccl("3.5", "a tuning policy passed through the execution environment"));
#endif // CCCL_VERSION >= 3005000
