// cub::DeviceSegmentedReduce::ArgMin / ArgMax: the library baselines for argmin/argmax per row and per
// segment (the hand-written ones: handwritten/argext/03_rows.cu).
//  - cub.segmented_arg: the offsets overload (CCCL 3.0 and later): one thread block per segment; batched
//    rows reach it through an iterator of row starts (segment_begins.cuh), segments through their offsets.
//  - cub.segmented_fixed_size_arg: the fixed-size overload (`int segment_size`, CCCL 3.5): CUB picks a
//    thread, a warp, a block or several blocks per row by the row length (segmented_fixed_size.cu).
// What CUB writes, and how it becomes the contract's outputs:
//  - one pair per segment, the index relative to the segment's start (the offsets overload subtracts
//    the begin offset, the fixed-size one counts modulo the row length): cub::KeyValuePair<int, T>
//    {key = index, value} from the offsets overload, cuda::std::pair<int, T> {first = index, second =
//    value} from the fixed-size one. Ties: the first occurrence (cub::ArgMin/ArgMax and
//    cub::detail::arg_reduce_op compare the index on equal values), +0/-0 compare equal, and the
//    element's own value is kept: the contract's rule.
//  - an empty segment gets CUB's "empty problem" pair {1, numeric_limits<T>::max()} (ArgMin) or
//    {1, lowest()} (ArgMax): index 1 and +-FLT_MAX, where the contract wants the identity (+-inf) and -1.
// Both are handled in the store itself: CUB writes through a tabulate output iterator (cuda:: from CCCL
// 3.5, thrust:: before), whose functor receives the segment number with the pair, writes value and index
// to their two arrays, and writes the identity and -1 for a segment it finds empty. No conversion kernel and no pair array: CUB's
// own launches are all that is timed.
// Sizes: CUB counts in int here (its offsets overload fixes OffsetT = int; the fixed-size one takes an
// int segment size), so both declare max_n = INT32_MAX and longer problems are refused by validate().
#include "common/contract/typed_reduction.cuh"
#include "needs_cccl.hpp"
#include "segment_begins.cuh"

#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/std/utility>
#include <cuda/version>
#if CCCL_VERSION >= 3005000
#include <cuda/iterator> // cuda::make_tabulate_output_iterator (thrust's is deprecated there)
#else
#include <thrust/iterator/tabulate_output_iterator.h>
#endif

#include <algorithm>
#include <limits>

namespace redu
{
namespace
{

// Writes segment i's pair as the contract's value and index; an empty segment as identity and -1.
// `offsets` null: equal rows of `row_length`.
template <class T, class ArgOp>
struct StoreArg
{
  T* values;
  std::int64_t* indices;
  const std::int64_t* offsets;
  std::int64_t row_length;

  __host__ __device__ void store(std::int64_t i, int index, T value) const
  {
    const bool empty = offsets != nullptr ? offsets[i] == offsets[i + 1] : row_length == 0;
    values[i]        = empty ? ArgOp::template identity<T>() : value;
    indices[i]       = empty ? -1 : index;
  }
  // The offsets overload's pair; also reached by CUB's empty-problem value, which converts to it.
  __host__ __device__ void operator()(std::int64_t i, const cub::KeyValuePair<int, T>& pair) const
  {
    store(i, pair.key, pair.value);
  }
  // The fixed-size overload's pair.
  __host__ __device__ void operator()(std::int64_t i, const ::cuda::std::pair<int, T>& pair) const
  {
    store(i, pair.first, pair.second);
  }
};

// CUB's output: an iterator that hands each store, with its segment number, to StoreArg.
template <class T, class ArgOp>
auto arg_output(const Problem& p)
{
  const StoreArg<T, ArgOp> store{static_cast<T*>(p.output), p.indices,
                                 p.kind == Kind::segmented ? p.offsets : nullptr, p.row_length()};
#if CCCL_VERSION >= 3005000
  return ::cuda::make_tabulate_output_iterator(store, std::int64_t{0});
#else
  return thrust::make_tabulate_output_iterator(store);
#endif
}

// One call for both the size query (temp == nullptr) and the reduction itself.
template <class T, class ArgOp, class Offsets>
cudaError_t segmented_arg(void* temp, std::size_t& temp_bytes, const Problem& p, Offsets begin, cudaStream_t stream)
{
  const auto* in = static_cast<const T*>(p.input);
  if constexpr (ArgOp::id == Op::argmin)
  {
    return cub::DeviceSegmentedReduce::ArgMin(temp, temp_bytes, in, arg_output<T, ArgOp>(p), p.segments, begin,
                                              begin + 1, stream);
  }
  else
  {
    return cub::DeviceSegmentedReduce::ArgMax(temp, temp_bytes, in, arg_output<T, ArgOp>(p), p.segments, begin,
                                              begin + 1, stream);
  }
}

template <class T, class ArgOp>
cudaError_t dispatch_offsets(void* temp, std::size_t& temp_bytes, const Problem& p, cudaStream_t stream)
{
  return with_segment_begins(p, [&](auto begin) { return segmented_arg<T, ArgOp>(temp, temp_bytes, p, begin, stream); });
}

using ArgOps = OpList<ArgMinOp, ArgMaxOp>;

#if CCCL_VERSION < 3005000
// Before CCCL 3.5 the offsets overload seeds every segment's reduction with its empty-problem pair
// {1, +-FLT_MAX}, which is not neutral: a row whose every element is the losing infinity (argmax of all
// -inf) keeps the seed. Declared, not patched, so that this row shows the library as it is.
constexpr const char* infinite_row_departure =
    "CCCL before 3.5 seeds each segment's ArgMin/ArgMax with {1, +-FLT_MAX}: a row of +inf gives argmin "
    "+FLT_MAX at index 1, a row of -inf argmax -FLT_MAX at index 1 (the contract: the infinity at index 0)";
#endif

class CubSegmentedArg : public TypedReduction<CubSegmentedArg, AllTypes, ArgOps>
{
public:
  CubSegmentedArg()
      : TypedReduction({.name   = "cub.segmented_arg",
                        .family = "cub",
                        .source = "cub::DeviceSegmentedReduce::ArgMin/ArgMax(..., begin_offsets, end_offsets) (CCCL)",
                        .idea   = "the library baseline for argmin/argmax per segment: one thread block per segment",
                        .kinds  = {Kind::batched, Kind::segmented},
                        .role   = Role::baseline,
                        .max_n  = std::numeric_limits<std::int32_t>::max(),
#if CCCL_VERSION < 3005000
                        .infinite_row_arg_departure = {{DType::f32, DType::f64}, infinite_row_departure}
#endif
                       })
  {}

  template <class T, class ArgOp>
  std::size_t workspace_bytes(const Problem& p) const
  {
    std::size_t bytes = 0;
    // A size query launches nothing and fails only on arguments validate() already checked.
    static_cast<void>(dispatch_offsets<T, ArgOp>(nullptr, bytes, p, nullptr));
    return bytes;
  }

  template <class T, class ArgOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    std::size_t bytes = ws.bytes;
    REDU_CUDA_TRY((dispatch_offsets<T, ArgOp>(ws.data, bytes, p, stream)));
    return Status::success();
  }
};

REDU_REGISTER(CubSegmentedArg);

#if CCCL_VERSION >= 3005000 // the fixed-size ArgMin/ArgMax overloads need CCCL 3.5

// Every row empty: CUB is not asked (a segment size of 0 is outside what its fixed-size dispatch
// documents); each row gets the identity and -1.
template <class T, class ArgOp>
__global__ void empty_rows(T* values, std::int64_t* indices, std::int64_t rows)
{
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < rows;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    values[i]  = ArgOp::template identity<T>();
    indices[i] = -1;
  }
}

template <class T, class ArgOp>
cudaError_t fixed_size_arg(void* temp, std::size_t& temp_bytes, const Problem& p, cudaStream_t stream)
{
  const auto* in       = static_cast<const T*>(p.input);
  const int row_length = static_cast<int>(p.row_length()); // fits: n <= max_n = INT32_MAX
  if constexpr (ArgOp::id == Op::argmin)
  {
    return cub::DeviceSegmentedReduce::ArgMin(temp, temp_bytes, in, arg_output<T, ArgOp>(p), p.segments, row_length,
                                              stream);
  }
  else
  {
    return cub::DeviceSegmentedReduce::ArgMax(temp, temp_bytes, in, arg_output<T, ArgOp>(p), p.segments, row_length,
                                              stream);
  }
}

class CubSegmentedFixedSizeArg : public TypedReduction<CubSegmentedFixedSizeArg, AllTypes, ArgOps>
{
public:
  CubSegmentedFixedSizeArg()
      : TypedReduction({.name   = "cub.segmented_fixed_size_arg",
                        .family = "cub",
                        .source = "cub::DeviceSegmentedReduce::ArgMin/ArgMax(..., num_segments, int segment_size, ...) "
                                  "(CCCL 3.5)",
                        .idea   = "argmin/argmax of equal rows by their length alone: a thread, warp, block or blocks per row",
                        .kinds  = {Kind::batched},
                        .role   = Role::baseline,
                        .max_n  = std::numeric_limits<std::int32_t>::max()})
  {}

  template <class T, class ArgOp>
  std::size_t workspace_bytes(const Problem& p) const
  {
    std::size_t bytes = 0;
    if (p.row_length() > 0)
    {
      static_cast<void>(fixed_size_arg<T, ArgOp>(nullptr, bytes, p, nullptr));
    }
    return bytes;
  }

  template <class T, class ArgOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    if (p.segments == 0)
    {
      return Status::success();
    }
    if (p.row_length() == 0)
    {
      constexpr int threads = 256;
      const std::int64_t blocks = std::min<std::int64_t>((p.segments + threads - 1) / threads, 65536);
      empty_rows<T, ArgOp><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(static_cast<T*>(p.output), p.indices,
                                                                                 p.segments);
      REDU_CUDA_TRY(cudaPeekAtLastError());
      return Status::success();
    }
    std::size_t bytes = ws.bytes;
    REDU_CUDA_TRY((fixed_size_arg<T, ArgOp>(ws.data, bytes, p, stream)));
    return Status::success();
  }
};

REDU_REGISTER(CubSegmentedFixedSizeArg);

#else
REDU_REGISTER_ABSENT(segmented_fixed_size_arg, "cub.segmented_fixed_size_arg",
                     needs_cccl("3.5", "DeviceSegmentedReduce::ArgMin/ArgMax with an int segment size"));
#endif // CCCL_VERSION >= 3005000

} // namespace
} // namespace redu
