// bf16 and f16 inputs through CUB: sums in a float accumulator, min/max in the input type.
// cub::DeviceReduce::Sum from bf16 into a float output does not compile (NVIDIA/cccl#615: its
// accumulator is the input type), so sum and sum_squares call TransformReduce with a widening functor,
// cuda::std::plus<float> and 0.0f: the accumulator is float, each half (exact in f32) is squared in
// float for sum_squares. Min and max call Reduce with cuda::minimum / cuda::maximum and the contract's
// identity, +-inf of the half type (Min/Max would seed with the largest finite half, device_reduce.cu).
// Two launches, deterministic (a fixed tree for a given GPU: run_to_run).
#include "common/contract/typed_reduction.cuh"
#include "widen_half.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda/functional>
#include <cuda/std/functional>

namespace redu
{
namespace
{

// One call for both the size query (temp == nullptr) and the reduction itself, as CUB intends.
template <class T, class ReduceOp>
cudaError_t reduce_halves(void* temp, std::size_t& temp_bytes, const Problem& p, cudaStream_t stream)
{
  const auto* in = static_cast<const T*>(p.input);
  auto* out      = static_cast<Output<T, ReduceOp>*>(p.output);
  if constexpr (ReduceOp::id == Op::sum || ReduceOp::id == Op::sum_squares)
  {
    return cub::DeviceReduce::TransformReduce(temp, temp_bytes, in, out, p.n, ::cuda::std::plus<float>{},
                                              WidenHalf<ReduceOp>{}, 0.0f, stream);
  }
  else if constexpr (ReduceOp::id == Op::min)
  {
    return cub::DeviceReduce::Reduce(temp, temp_bytes, in, out, p.n, ::cuda::minimum<>{}, MinOp::identity<T>(), stream);
  }
  else
  {
    return cub::DeviceReduce::Reduce(temp, temp_bytes, in, out, p.n, ::cuda::maximum<>{}, MaxOp::identity<T>(), stream);
  }
}

class CubReduceHalves
    : public TypedReduction<CubReduceHalves, TypeList<__nv_bfloat16, __half>, OpList<SumOp, SumSquaresOp, MinOp, MaxOp>>
{
public:
  CubReduceHalves()
      : TypedReduction({.name   = "cub.reduce_halves",
                        .family = "cub",
                        .source = "cub::DeviceReduce::TransformReduce (plus<float>, 0.0f) / Reduce (CCCL)",
                        .idea   = "the library baseline for bf16/f16: float accumulation through TransformReduce",
                        .kinds  = {Kind::full},
                        .role   = Role::baseline})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem& p) const
  {
    std::size_t bytes = 0;
    // A size query launches nothing and fails only on arguments validate() already checked.
    static_cast<void>(reduce_halves<T, ReduceOp>(nullptr, bytes, p, nullptr));
    return bytes;
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    std::size_t bytes = ws.bytes;
    REDU_CUDA_TRY((reduce_halves<T, ReduceOp>(ws.data, bytes, p, stream)));
    return Status::success();
  }
};

REDU_REGISTER(CubReduceHalves);

} // namespace
} // namespace redu
