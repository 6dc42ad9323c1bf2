// The contract's vocabulary: what a reduction problem is, independent of any implementation.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace redu
{

enum class DType
{
  i32,
  i64,
  f32,
  f64,
  bf16, // __nv_bfloat16 (8 significant bits, f32's exponent range)
  f16   // __half (11 significant bits, largest finite 65504)
};

// sum_squares is the transform-reduce of x -> x * x under +. argmin/argmax also write, per output,
// the index (relative to the segment start) of the first occurrence of the extreme; an empty input
// gives the min/max identity and index -1.
//
// The contract's rules for every edge. Each is enforced by validate()/run() before anything is
// launched where it can be, and tested for every registered implementation (tests/).
//
// Values
//  - Identities: 0 for sum and sum_squares; for min/argmin the largest value of the type, for
//    max/argmax the smallest: +inf and -inf for f32/f64 (not +-FLT_MAX), INT_MAX/INT_MIN for integers.
//    So the min of an all-(+inf) input is +inf, the max of an all-(-inf) input is -inf, and an empty
//    input or segment gives +inf / -inf for floats.
//    Where CUB differs: cub::DeviceReduce::Min/Max and DeviceSegmentedReduce::Min/Max seed the
//    reduction with numeric_limits<T>::max()/lowest(), so for floats they return +-FLT_MAX on an
//    all-infinite or empty input. The CUB baselines here reach the same kernels through Reduce with the
//    contract's identity (cub_baseline/), and tests/cub_difference_test.cu shows CUB's own answer.
//  - sum: a NaN anywhere in a row gives NaN; +inf (without -inf or NaN) gives +inf, -inf likewise;
//    +inf and -inf together give NaN. Rows never affect their neighbours.
//  - Subnormal inputs are summed, never flushed to zero (every kernel is compiled without -ftz, and no
//    finish uses the f32 global atomic add, which flushes them).
//  - min/max: an infinity is an ordinary extreme. +0 and -0 compare equal: the min (max) of zeros of
//    both signs and larger (smaller) values is a zero of either sign.
//  - The sign of a zero result (sums and min/max) is not specified, but it is part of the result's
//    bits: an implementation that declares run_to_run or gpu_to_gpu (reduction.hpp) returns the same
//    zero for the same input every time.
//  - argmin/argmax: among equal extremes (repeated values, or +0 and -0) the first occurrence wins and
//    its own value is written, sign included, as CUB's ArgMin/ArgMax do.
//  - NaN in min, max, argmin or argmax input: the result is unspecified (as with CUB): which operand a
//    comparison keeps depends on the order of the tree.
//  - Integer sums wrap like two's complement in the element's width (int32 sums wrap at 2^32), in
//    every implementation; the exact mathematical sum is returned whenever it fits.
//  - bf16 and f16 (halves): the float rules above hold for them too. Their sum and sum_squares
//    accumulate in f32 and write an f32 result (output_dtype below; each half is exact in f32, squares
//    are taken in f32); min/max/argmin/argmax write the input type, identities +-inf of the half type.
//    Half subnormals are summed, never flushed: f16's are f32 normals, bf16's are f32 subnormals.
// Accuracy (float sum and sum_squares): |result - exact| <= factor * u * sum|x_i|, u the unit roundoff
// of the accumulating type (the element type; f32's, u = 2^-24, for bf16/f16, whose inputs are exact
// in f32), with the factor each implementation states (sum_error_factor() in
// reduction.hpp): 2 (ceil(log2 count) + 1) for a tree with short per-thread chains, plus the number of
// partials an implementation adds in arrival order (its atomic finish). Min, max and integer sums are
// exact. The bound assumes no partial sum overflows, i.e. sum|x_i| is finite in the output type; where
// a partial sum overflows although the exact sum is finite (max + max - max), the result is the exact
// sum rounded, or +-inf or NaN, never a finite wrong number. Info::correctly_rounded declares the exact
// sum rounded once.
// Memory
//  - input, output, indices and offsets are device pointers aligned to their element size (offsets and
//    indices to 8 bytes); a misaligned one is refused.
//  - The workspace is aligned to workspace_alignment (256 bytes, reduction.hpp); a less aligned one is
//    refused.
//  - The output, the indices and the workspace may overlap nothing else (input, offsets, each other);
//    an overlapping problem is refused (CUB forbids it too).
//  - Segmented: offsets[0] >= 0, non-decreasing, offsets[segments] == n; so segments = 0 requires n = 0.
//    Elements before offsets[0] are never read.
// Calls
//  - Workspace: see Workspace below; any sequence of different problems may share one workspace.
//  - CUDA graphs: an implementation declares whether run() can be captured (Info::graph_capture); a
//    segmented run() that checks its offsets synchronises and cannot (pass OffsetsCheck::trust). A call
//    that cannot be captured is refused while its stream captures, and the capture stays valid.
enum class Op
{
  sum,
  min,
  max,
  sum_squares,
  argmin,
  argmax
};

// full: one array -> one value.
// batched: `segments` equal rows of n / segments contiguous elements -> one value per row.
// segmented: segment i is [offsets[i], offsets[i+1]) -> one value per segment; empty segments
//            produce the operator's identity (0 for sum, numeric max for min, lowest for max,
//            as cub::DeviceSegmentedReduce does).
enum class Kind
{
  full,
  batched,
  segmented
};

inline constexpr DType all_dtypes[] = {DType::i32, DType::i64, DType::f32, DType::f64, DType::bf16, DType::f16};
inline constexpr Op all_ops[]       = {Op::sum, Op::min, Op::max, Op::sum_squares, Op::argmin, Op::argmax};
inline constexpr Kind all_kinds[]   = {Kind::full, Kind::batched, Kind::segmented};

const char* to_string(DType dtype);

// The element type of a C++ type: what kernels, baselines and tests are instantiated for.
template <class T>
constexpr DType dtype_of()
{
  if constexpr (std::is_same_v<T, std::int32_t>)
  {
    return DType::i32;
  }
  else if constexpr (std::is_same_v<T, std::int64_t>)
  {
    return DType::i64;
  }
  else if constexpr (std::is_same_v<T, float>)
  {
    return DType::f32;
  }
  else if constexpr (std::is_same_v<T, double>)
  {
    return DType::f64;
  }
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
  {
    return DType::bf16;
  }
  else
  {
    static_assert(std::is_same_v<T, __half>, "element types: int32_t, int64_t, float, double, __nv_bfloat16, __half");
    return DType::f16;
  }
}

// The element type of a problem's outputs: f32 for a bf16 or f16 sum or sum_squares (accumulated in
// f32: a half sum would lose every digit past 2^8 or 2^11 terms), the input type otherwise.
constexpr DType output_dtype(DType input, Op op)
{
  const bool half = input == DType::bf16 || input == DType::f16;
  return half && (op == Op::sum || op == Op::sum_squares) ? DType::f32 : input;
}
const char* to_string(Op op);
const char* to_string(Kind kind);
std::size_t size_of(DType dtype);
constexpr bool is_floating(DType dtype) // f32, f64, bf16, f16
{
  return dtype != DType::i32 && dtype != DType::i64;
}
bool is_arg(Op op); // argmin or argmax: the problem needs `indices`

struct Problem
{
  Kind kind   = Kind::full;
  DType dtype = DType::f32;
  Op op       = Op::sum;
  // Total number of input elements (64-bit). n = 0 is valid: every output becomes the identity.
  std::int64_t n = 0;
  // Number of outputs: 1 for full, rows for batched, segment count for segmented.
  std::int64_t segments = 1;
  const void* input = nullptr; // device memory, n elements of dtype
  void* output      = nullptr; // device memory, `segments` elements of output_dtype(dtype, op)
  // Segmented only: device array of segments + 1 non-decreasing offsets, offsets[segments] == n.
  const std::int64_t* offsets = nullptr;
  // argmin/argmax only: device array of `segments` indices, written beside the values in `output`.
  std::int64_t* indices = nullptr;

  std::int64_t row_length() const { return segments > 0 ? n / segments : 0; }
  std::size_t input_bytes() const { return static_cast<std::size_t>(n) * size_of(dtype); }
  std::size_t output_bytes() const { return static_cast<std::size_t>(segments) * size_of(output_dtype(dtype, op)); }
};

// Device scratch memory, sized by workspace_bytes() and allocated by the caller outside any timed
// region. The caller zero-fills it once after allocating it (allocate_workspace in
// common/device_buffer.hpp does), and may reuse it for any sequence of stream-ordered calls of the same
// implementation, on different problems (types, operators, sizes, segment counts), as long as it is at
// least as large as each call requires; never for two concurrent calls. An implementation that keeps
// counters or flags in it (single-pass kernels) must leave them zero again when its last kernel
// finishes, and may not rely on any other byte of it: per-call state is initialised by the call, since
// an earlier problem's layout may have left data anywhere else.
struct Workspace
{
  void* data        = nullptr;
  std::size_t bytes = 0;
};

} // namespace redu
