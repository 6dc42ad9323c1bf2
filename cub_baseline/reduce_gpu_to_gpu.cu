// cub::DeviceReduce::Sum(in, out, n, env) with cuda::execution::require(determinism::gpu_to_gpu)
// (CCCL 3.5): CUB's reproducible float sum. Every value is deposited into a reproducible floating-point
// accumulator (RFA, cub/detail/rfa.cuh: three exponent-range bins of 13 bits for float, 40 for double,
// Demmel and Nguyen's binned summation), whose sum does not depend on the order of the deposits; block
// accumulators are merged by a second single-block pass. So the result is bitwise the same run to run and
// on any GPU, whatever tiles and grid CUB picks there (run_to_run, the default, only promises the same bits
// on the same GPU). It is in the study as the price of reproducibility across machines, against
// cub.device_reduce and the hand-written deterministic trees.
// f32 and f64 sums only: for integers, min and max CUB serves gpu_to_gpu with the run-to-run kernels
// (cub.device_reduce), and other operators are refused at compile time.
// Where CCCL 3.5.0's RFA breaks the contract (problem.hpp), measured on an H100: any infinity in the input
// gives NaN (+inf + 1 -> NaN, not +inf); and when every |x| is tiny the binned sum is wrong: for f32 below
// about 2^-106 (one FLT_MIN, or one subnormal, sums to about -1.5e-36), for f64 below about 2^-940 (one
// DBL_MIN sums to about -7e-302, every subnormal to 0). A larger value in the input puts the bins where they
// work (1 + 999 x 2^-130 sums to 1 in f32). And at the top of the double range: converting the bins
// back to a double, the top bins are scaled down by 2^-66 and then "up" by the same 2^-66
// (conv_binned_to_double's scale_up equals its scale_down), so an f64 sum whose largest term is near
// 2^1000 comes out 2^132 times too small. All three are declared in Info (nonfinite_sum_departure,
// subnormal_sum_departure, top_of_range_sum_departure): the shared tests skip those checks for it and
// say so, and tests/library_departures_test.cpp shows that they still happen.
// CCCL 3.5.0 issue: for n an exact multiple of 2^31 - 1 the RFA dispatch sizes its partials for one chunk
// too few and writes past them (dispatch_reduce_deterministic.cuh, invoke_passes: the last full chunk
// counts no blocks), so such n are refused before anything is launched.
// Workspace: the per-block accumulators, served from the caller's workspace (workspace_resource.cuh).
#include "common/contract/typed_reduction.cuh"

#include <cuda/version>

#if CCCL_VERSION >= 3005000 // needs CCCL 3.5; registers nothing otherwise

#include <cub/device/device_reduce.cuh>
#include <cuda/execution>

#include <limits>

#include "workspace_resource.cuh"

namespace redu
{
namespace
{

template <class T>
cudaError_t sum_gpu_to_gpu(const Problem& p, const WorkspaceResource& resource, cudaStream_t stream)
{
  const auto env =
    workspace_env(stream, resource, ::cuda::execution::require(::cuda::execution::determinism::gpu_to_gpu));
  return cub::DeviceReduce::Sum(static_cast<const T*>(p.input), static_cast<T*>(p.output), p.n, env);
}

// RFA's chunk size: n = k * chunk (k >= 1) hits the undersized partials (see the top of the file).
constexpr std::int64_t rfa_chunk = std::numeric_limits<std::int32_t>::max();

class CubReduceGpuToGpu : public TypedReduction<CubReduceGpuToGpu, TypeList<float, double>, OpList<SumOp>>
{
public:
  CubReduceGpuToGpu()
      : TypedReduction({.name   = "cub.reduce_gpu_to_gpu",
                        .family = "cub",
                        .source = "cub::DeviceReduce::Sum(in, out, n, env) with "
                                  "require(determinism::gpu_to_gpu) (CCCL 3.5)",
                        .idea   = "binned (RFA) float sums: the same bits on any GPU, whatever the grid",
                        .kinds  = {Kind::full},
                        .role   = Role::baseline,
                        .determinism = input_only,
                        .subnormal_sum_departure = {{DType::f32, DType::f64},
                                                    "CCCL 3.5.0's RFA sums input that is all tiny wrongly (below "
                                                    "about 2^-106 in f32, 2^-940 in f64): one FLT_MIN sums to "
                                                    "about -1.5e-36, and 2^21 zeros of both signs give other bits "
                                                    "from run to run"},
                        .nonfinite_sum_departure = {{DType::f32, DType::f64},
                                                    "CCCL 3.5.0's RFA gives NaN for any infinity in the input "
                                                    "(+inf + 1 -> NaN)"},
                        .top_of_range_sum_departure = {{DType::f64},
                                                       "CCCL 3.5.0's RFA returns its top bins to double scaled by "
                                                       "2^-132 (cub/detail/rfa.cuh, conv_binned_to_double: scale_up "
                                                       "equals scale_down, 2^-66): a sum whose largest term is 2^944 "
                                                       "or more (about 3e284), or 2^864 or more once its top bin has "
                                                       "carried, comes out about 2^132 times too small (so does "
                                                       "DBL_MAX + DBL_MAX - DBL_MAX)"}})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem& p) const
  {
    return env_workspace_bytes([&](const WorkspaceResource& r) { return sum_gpu_to_gpu<T>(p, r, nullptr); });
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    if (p.n > 0 && p.n % rfa_chunk == 0)
    {
      return Status::invalid(info().name + ": n = " + std::to_string(p.n)
                             + " is a multiple of 2^31 - 1, which CCCL 3.5.0's RFA dispatch under-allocates");
    }
    return env_run(ws, "cub::DeviceReduce::Sum (gpu_to_gpu)",
                   [&](const WorkspaceResource& r) { return sum_gpu_to_gpu<T>(p, r, stream); });
  }
};

REDU_REGISTER(CubReduceGpuToGpu);

} // namespace
} // namespace redu

#else
#include "needs_cccl.hpp"
REDU_REGISTER_ABSENT(reduce_gpu_to_gpu, "cub.reduce_gpu_to_gpu", ::redu::needs_cccl("3.5", "determinism::gpu_to_gpu, the reproducible float sum"));
#endif // CCCL_VERSION >= 3005000
