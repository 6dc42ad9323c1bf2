// bf16 and f16 rows and segments through CUB: cub::DeviceSegmentedReduce::Reduce, a float
// per segment for sum and sum_squares, the input type for min and max.
// DeviceSegmentedReduce has no transform entry point and its Sum accumulates in the input type (as
// DeviceReduce::Sum, NVIDIA/cccl#615), so the sums read the halves through a transform iterator that
// widens each to float (WidenHalf), with cuda::std::plus<float> and 0.0f: the accumulator and the output
// are float. Min and max reduce the halves themselves with cuda::minimum / cuda::maximum and the
// contract's identity, +-inf of the half type (segmented_reduce.cu says why not Min/Max).
// One thread block per segment, a fixed tree per segment: run_to_run.
#include "common/contract/typed_reduction.cuh"
#include "segment_begins.cuh"
#include "widen_half.cuh"

#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <thrust/iterator/transform_iterator.h>

namespace redu
{
namespace
{

template <class T, class ReduceOp, class Offsets>
cudaError_t segmented_halves(void* temp, std::size_t& temp_bytes, const Problem& p, Offsets begin, cudaStream_t stream)
{
  const auto* in = static_cast<const T*>(p.input);
  auto* out      = static_cast<Output<T, ReduceOp>*>(p.output);
  if constexpr (ReduceOp::id == Op::sum || ReduceOp::id == Op::sum_squares)
  {
    const auto widened = thrust::make_transform_iterator(in, WidenHalf<ReduceOp>{});
    return cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, widened, out, p.segments, begin, begin + 1,
                                              ::cuda::std::plus<float>{}, 0.0f, stream);
  }
  else if constexpr (ReduceOp::id == Op::min)
  {
    return cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, in, out, p.segments, begin, begin + 1,
                                              ::cuda::minimum<>{}, MinOp::identity<T>(), stream);
  }
  else
  {
    return cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, in, out, p.segments, begin, begin + 1,
                                              ::cuda::maximum<>{}, MaxOp::identity<T>(), stream);
  }
}

// One call for both the size query (temp == nullptr) and the reduction itself, as CUB intends.
template <class T, class ReduceOp>
cudaError_t dispatch_half_offsets(void* temp, std::size_t& temp_bytes, const Problem& p, cudaStream_t stream)
{
  return with_segment_begins(
      p, [&](auto begin) { return segmented_halves<T, ReduceOp>(temp, temp_bytes, p, begin, stream); });
}

class CubSegmentedHalves
    : public TypedReduction<CubSegmentedHalves, TypeList<__nv_bfloat16, __half>, OpList<SumOp, SumSquaresOp, MinOp, MaxOp>>
{
public:
  CubSegmentedHalves()
      : TypedReduction({.name   = "cub.segmented_halves",
                        .family = "cub",
                        .source = "cub::DeviceSegmentedReduce::Reduce over a widening transform iterator (CCCL)",
                        .idea   = "the library baseline for bf16/f16 rows and segments: a block per segment, float sums",
                        .kinds  = {Kind::batched, Kind::segmented},
                        .role   = Role::baseline})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem& p) const
  {
    std::size_t bytes = 0;
    // A size query launches nothing and fails only on arguments validate() already checked.
    static_cast<void>(dispatch_half_offsets<T, ReduceOp>(nullptr, bytes, p, nullptr));
    return bytes;
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    std::size_t bytes = ws.bytes;
    REDU_CUDA_TRY((dispatch_half_offsets<T, ReduceOp>(ws.data, bytes, p, stream)));
    return Status::success();
  }
};

REDU_REGISTER(CubSegmentedHalves);

} // namespace
} // namespace redu
