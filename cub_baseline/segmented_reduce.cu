// cub::DeviceSegmentedReduce::Sum / Min / Max, and ::Reduce with the project's operator functors:
// the library baselines for batched rows and for variable segments. CUB gives each segment one thread block, so it shines when there are many
// medium segments and starves the GPU on a few huge ones or drowns in millions of tiny ones.
// Float Min/Max of the named baseline go through Reduce with cuda::minimum / cuda::maximum and the
// contract's identity (+-inf): DeviceSegmentedReduce::Min/Max seed every segment with +-FLT_MAX, so an
// empty or all-infinite segment would give +-FLT_MAX (device_reduce.cu says the same of DeviceReduce).
#include "common/contract/typed_reduction.cuh"
#include "segment_begins.cuh"

#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/functional>

#include <type_traits>

namespace redu
{
namespace
{

// Which CUB entry point a registered baseline calls: the named ones, or the generic Reduce.
enum class Entry
{
  named,
  generic
};

template <Entry entry, class T, class ReduceOp, class Offsets>
cudaError_t segmented_reduce(void* temp, std::size_t& temp_bytes, const Problem& p, Offsets begin, cudaStream_t stream)
{
  const auto* in = static_cast<const T*>(p.input);
  auto* out      = static_cast<T*>(p.output);
  const auto segments = p.segments;
  if constexpr (entry == Entry::generic)
  {
    return cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, in, out, segments, begin, begin + 1, ReduceOp{},
                                              ReduceOp::template identity<T>(), stream);
  }
  else if constexpr (ReduceOp::id == Op::sum)
  {
    return cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in, out, segments, begin, begin + 1, stream);
  }
  else if constexpr (ReduceOp::id == Op::min && std::is_floating_point_v<T>)
  {
    return cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, in, out, segments, begin, begin + 1,
                                              ::cuda::minimum<>{}, MinOp::identity<T>(), stream);
  }
  else if constexpr (ReduceOp::id == Op::min)
  {
    return cub::DeviceSegmentedReduce::Min(temp, temp_bytes, in, out, segments, begin, begin + 1, stream);
  }
  else if constexpr (std::is_floating_point_v<T>)
  {
    return cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, in, out, segments, begin, begin + 1,
                                              ::cuda::maximum<>{}, MaxOp::identity<T>(), stream);
  }
  else
  {
    return cub::DeviceSegmentedReduce::Max(temp, temp_bytes, in, out, segments, begin, begin + 1, stream);
  }
}

template <Entry entry, class T, class ReduceOp>
cudaError_t dispatch_offsets(void* temp, std::size_t& temp_bytes, const Problem& p, cudaStream_t stream)
{
  return with_segment_begins(
      p, [&](auto begin) { return segmented_reduce<entry, T, ReduceOp>(temp, temp_bytes, p, begin, stream); });
}

template <Entry entry>
class CubSegmentedReduce : public TypedReduction<CubSegmentedReduce<entry>>
{
public:
  CubSegmentedReduce()
      : TypedReduction<CubSegmentedReduce<entry>>(
          entry == Entry::named
            ? Info{.name          = "cub.segmented_reduce",
                   .family        = "cub",
                   .source        = "cub::DeviceSegmentedReduce::Sum/Min/Max (CCCL)",
                   .idea          = "the library baseline for segments: one thread block per segment",
                   .kinds         = {Kind::batched, Kind::segmented},
                   .role          = Role::baseline}
            : Info{.name          = "cub.segmented_reduce_custom_op",
                   .family        = "cub",
                   .source        = "cub::DeviceSegmentedReduce::Reduce(op, init) (CCCL)",
                   .idea          = "the generic segmented entry point driven by the project's operator functors",
                   .kinds         = {Kind::batched, Kind::segmented},
                   .role          = Role::baseline})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem& p) const
  {
    std::size_t bytes = 0;
    static_cast<void>(dispatch_offsets<entry, T, ReduceOp>(nullptr, bytes, p, nullptr));
    return bytes;
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    std::size_t bytes = ws.bytes;
    REDU_CUDA_TRY((dispatch_offsets<entry, T, ReduceOp>(ws.data, bytes, p, stream)));
    return Status::success();
  }
};

using CubSegmentedNamed   = CubSegmentedReduce<Entry::named>;
using CubSegmentedGeneric = CubSegmentedReduce<Entry::generic>;
REDU_REGISTER(CubSegmentedNamed);
REDU_REGISTER(CubSegmentedGeneric);

} // namespace
} // namespace redu
