// cub::DeviceReduce::Sum(in, out, n, env) with cuda::execution::require(determinism::not_guaranteed)
// (CCCL 3.5): CUB's single-pass atomic reduce. A memset of the output, then one kernel whose blocks each
// reduce their tiles and add the block's value to the output with an atomic; no second pass, no partials
// in memory. It is in the study as the library's answer to the hand-written atomic finishes (leimao 04,
// modern): what one launch less is worth when CUB itself gives up run-to-run reproducibility.
// Sums only: CUB takes the atomic path for cuda::std::plus alone (min/max fall back to the run-to-run
// kernels, so claiming them would time cub.device_reduce under another name).
// f32 departs from the contract (problem.hpp) on subnormals: the atomic is cuda::atomic_ref<float>::fetch_add,
// the f32 global atomic add (atom.add.f32), which flushes subnormal operands and results to zero, so a float
// sum of subnormals comes out 0 (measured on an H100: one element of 1000 x the smallest subnormal sums to 0).
// Declared in Info (subnormal_sum_departure), so the shared tests skip that one check and
// tests/library_departures_test.cpp shows it. The f64 atomic add keeps subnormals; integers are exact in any
// order. (modern.atomic, the hand-written rival, adds f32 partials in a double word for this reason.)
// How many partials arrive unordered (dispatch_reduce.cuh, invoke_regular_size_reduce): the grid is
// GridEvenShare's, min(ceil(n / tile), max_blocks) blocks, at least 1, each adding one value. The tile is
// threads_per_block x items_per_thread of the multi-tile pass policy (tuning_reduce.cuh,
// get_two_phase_tuning: 256 x 16 nominal for 4-byte elements, scaled to 256 x 8 for 8-byte ones on every
// sm_60+ GPU; sm_100 tunes larger tiles), so at most ceil(n / 2048) + 1 blocks add into an output.
// Inside a block the warps' values are also added by shared-memory atomics in arrival order
// (BLOCK_REDUCE_WARP_REDUCTIONS_NONDETERMINISTIC), a chain as long as the one the deterministic warp
// reductions fold in a fixed order, so it adds nothing to the bound the tree factor already covers.
// The workspace is CUB's 1-byte request, served from the caller's workspace (workspace_resource.cuh).
#include "common/contract/typed_reduction.cuh"

#include <cuda/version>

#if CCCL_VERSION >= 3005000 // needs CCCL 3.5; registers nothing otherwise

#include <cub/device/device_reduce.cuh>
#include <cuda/execution>

#include "workspace_resource.cuh"

namespace redu
{
namespace
{

// The smallest multi-tile tile of CUB's default sm_60+ policies for the element types registered here.
constexpr std::int64_t smallest_tile = 2048;

std::int64_t atomic_block_partials(const Problem& p)
{
  return (p.n + smallest_tile - 1) / smallest_tile + 1;
}

template <class T>
cudaError_t sum_not_guaranteed(const Problem& p, const WorkspaceResource& resource, cudaStream_t stream)
{
  const auto env = workspace_env(stream, resource,
                                 ::cuda::execution::require(::cuda::execution::determinism::not_guaranteed));
  return cub::DeviceReduce::Sum(static_cast<const T*>(p.input), static_cast<T*>(p.output), p.n, env);
}

class CubReduceAtomic
    : public TypedReduction<CubReduceAtomic, TypeList<std::int32_t, std::int64_t, float, double>, OpList<SumOp>>
{
public:
  CubReduceAtomic()
      : TypedReduction({.name               = "cub.reduce_atomic",
                        .family             = "cub",
                        .source             = "cub::DeviceReduce::Sum(in, out, n, env) with "
                                              "require(determinism::not_guaranteed) (CCCL 3.5)",
                        .idea               = "CUB's single pass: every block adds its value to the output atomically",
                        .kinds              = {Kind::full},
                        .role               = Role::baseline,
                        .determinism        = arrival_order_float_sums,
                        .unordered_partials = atomic_block_partials,
                        .subnormal_sum_departure = {{DType::f32},
                                                    "CUB's f32 atomic add (atom.add.f32) flushes subnormals to "
                                                    "zero: a sum of subnormals comes out 0"}})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem& p) const
  {
    return env_workspace_bytes([&](const WorkspaceResource& r) { return sum_not_guaranteed<T>(p, r, nullptr); });
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    return env_run(ws, "cub::DeviceReduce::Sum (not_guaranteed)",
                   [&](const WorkspaceResource& r) { return sum_not_guaranteed<T>(p, r, stream); });
  }
};

REDU_REGISTER(CubReduceAtomic);

} // namespace
} // namespace redu

#else
#include "needs_cccl.hpp"
REDU_REGISTER_ABSENT(reduce_atomic, "cub.reduce_atomic", ::redu::needs_cccl("3.5", "determinism::not_guaranteed, the single-pass atomic sum"));
#endif // CCCL_VERSION >= 3005000
