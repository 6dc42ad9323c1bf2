// The contract's vocabulary: what a reduction problem is, independent of any implementation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace redu
{

enum class DType
{
  i32,
  i64,
  f32,
  f64
};

// sum_squares is the transform-reduce of x -> x * x under +. argmin/argmax also write, per output,
// the index (relative to the segment start) of the first occurrence of the extreme; an empty input
// gives the min/max identity and index -1.
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

inline constexpr DType all_dtypes[] = {DType::i32, DType::i64, DType::f32, DType::f64};
inline constexpr Op all_ops[]       = {Op::sum, Op::min, Op::max, Op::sum_squares, Op::argmin, Op::argmax};
inline constexpr Kind all_kinds[]   = {Kind::full, Kind::batched, Kind::segmented};

const char* to_string(DType dtype);
const char* to_string(Op op);
const char* to_string(Kind kind);
std::size_t size_of(DType dtype);
bool is_floating(DType dtype);
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
  void* output      = nullptr; // device memory, `segments` elements of dtype
  // Segmented only: device array of segments + 1 non-decreasing offsets, offsets[segments] == n.
  const std::int64_t* offsets = nullptr;
  // argmin/argmax only: device array of `segments` indices, written beside the values in `output`.
  std::int64_t* indices = nullptr;

  std::int64_t row_length() const { return segments > 0 ? n / segments : 0; }
  std::size_t input_bytes() const { return static_cast<std::size_t>(n) * size_of(dtype); }
  std::size_t output_bytes() const { return static_cast<std::size_t>(segments) * size_of(dtype); }
};

// Device scratch memory, sized by workspace_bytes() and allocated by the caller outside any timed
// region. The caller zero-fills it once after allocating it (allocate_workspace in
// common/device_buffer.hpp does), and may reuse it for any number of stream-ordered calls of the same
// implementation, never for two concurrent calls. An implementation that keeps counters or flags in
// it (single-pass kernels) must leave them zero again when its last kernel finishes, so no per-call
// memset is needed.
struct Workspace
{
  void* data        = nullptr;
  std::size_t bytes = 0;
};

} // namespace redu
