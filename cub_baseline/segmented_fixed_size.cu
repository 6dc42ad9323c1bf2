// cub::DeviceSegmentedReduce::Sum / Min / Max / Reduce with a fixed segment size (the overloads taking
// `int segment_size` instead of offset iterators, CCCL 3.5): the library's entry point for equal rows. With
// every row the same length CUB picks one strategy for the whole batch (dispatch_fixed_size): a thread per
// row for short rows, a warp per row for medium ones, a block per row, or several blocks per row and a
// second pass for rows longer than a tile. It is in the study beside cub.segmented_reduce, which reaches
// the same rows through offset iterators and one block per row whatever their length.
// Float Min/Max go through Reduce with cuda::minimum / cuda::maximum and the contract's identity (+-inf):
// the named Min/Max seed every row with +-FLT_MAX (segmented_reduce.cu says why that is not the identity).
// Integers keep the named Min/Max, whose seed is the identity. An empty row (segment_size 0) is written
// the seed, i.e. the identity, by CUB's small-row path.
// Row length: CUB takes it as int. Rather than refuse long rows one by one, the implementation declares
// max_n = INT32_MAX total elements, so every row (at most n elements) fits; longer batches are refused by
// validate() before anything is touched.
#include "common/contract/typed_reduction.cuh"

#include <cuda/version>

#if CCCL_VERSION >= 3005000 // needs CCCL 3.5; registers nothing otherwise

#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/functional>

#include <limits>
#include <type_traits>

namespace redu
{
namespace
{

// One call for both the size query (temp == nullptr) and the reduction itself.
template <class T, class ReduceOp>
cudaError_t fixed_size_reduce(void* temp, std::size_t& temp_bytes, const Problem& p, cudaStream_t stream)
{
  const auto* in       = static_cast<const T*>(p.input);
  auto* out            = static_cast<T*>(p.output);
  const auto rows      = p.segments;
  const int row_length = static_cast<int>(p.row_length()); // fits: n <= max_n = INT32_MAX
  if constexpr (ReduceOp::id == Op::sum)
  {
    return cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in, out, rows, row_length, stream);
  }
  else if constexpr (ReduceOp::id == Op::min && std::is_floating_point_v<T>)
  {
    return cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, in, out, rows, row_length, ::cuda::minimum<>{},
                                              MinOp::identity<T>(), stream);
  }
  else if constexpr (ReduceOp::id == Op::min)
  {
    return cub::DeviceSegmentedReduce::Min(temp, temp_bytes, in, out, rows, row_length, stream);
  }
  else if constexpr (std::is_floating_point_v<T>)
  {
    return cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, in, out, rows, row_length, ::cuda::maximum<>{},
                                              MaxOp::identity<T>(), stream);
  }
  else
  {
    return cub::DeviceSegmentedReduce::Max(temp, temp_bytes, in, out, rows, row_length, stream);
  }
}

class CubSegmentedFixedSize : public TypedReduction<CubSegmentedFixedSize>
{
public:
  CubSegmentedFixedSize()
      : TypedReduction({.name   = "cub.segmented_fixed_size",
                        .family = "cub",
                        .source = "cub::DeviceSegmentedReduce::Sum/Min/Max/Reduce(..., num_segments, "
                                  "int segment_size, ...) (CCCL 3.5)",
                        .idea   = "equal rows by their length alone: a thread, warp, block or blocks per row",
                        .kinds  = {Kind::batched},
                        .role   = Role::baseline,
                        .max_n  = std::numeric_limits<std::int32_t>::max()})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem& p) const
  {
    std::size_t bytes = 0;
    // A size query launches nothing and fails only on arguments validate() already checked.
    static_cast<void>(fixed_size_reduce<T, ReduceOp>(nullptr, bytes, p, nullptr));
    return bytes;
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    std::size_t bytes = ws.bytes;
    REDU_CUDA_TRY((fixed_size_reduce<T, ReduceOp>(ws.data, bytes, p, stream)));
    return Status::success();
  }
};

REDU_REGISTER(CubSegmentedFixedSize);

} // namespace
} // namespace redu

#else
#include "needs_cccl.hpp"
REDU_REGISTER_ABSENT(segmented_fixed_size, "cub.segmented_fixed_size", ::redu::needs_cccl("3.5", "DeviceSegmentedReduce with an int segment size"));
#endif // CCCL_VERSION >= 3005000
