// One problem on the device, built from host values: the input (optionally between poison guards and
// misaligned) and the offsets of a segmented shape, uploaded here; the output, indices and workspace come
// from common/host/problem_buffers.hpp, as the benchmark's and the studies' do. Every test that runs a
// problem of host values builds it here.
#pragma once

#include "reference.hpp"
#include "run_helpers.hpp"
#include "shapes.hpp"

#include "common/contract/reduction.hpp"
#include "common/host/device_buffer.hpp"
#include "common/host/problem_buffers.hpp"

#include <algorithm>
#include <optional>
#include <vector>

namespace redu::test
{

struct DeviceProblem : ProblemBuffers
{
  DeviceBuffer input, offsets;
};

// Where the input sits in its allocation: `misalign` elements past a 256-byte boundary, behind 256
// bytes of `guard` values and followed by 256 more (none without a guard), so an over-read on either
// side reads the guard.
template <class T>
struct Placement
{
  int misalign = 0;
  std::optional<T> guard;
};

// Builds `d` for `kind`/`op` over `shape` with input `values`, and the workspace of `impl` unless it is
// null (make_problem).
template <class T>
Status make_device_problem(Kind kind, Op op, const Shape& shape, const std::vector<T>& values, const Reduction* impl,
                           DeviceProblem& d, const Placement<T>& placement = {})
{
  const std::size_t guard = placement.guard ? 256 / sizeof(T) : 0;
  std::vector<T> padded(guard + placement.misalign, placement.guard.value_or(T(0)));
  padded.insert(padded.end(), values.begin(), values.end());
  padded.insert(padded.end(), guard, placement.guard.value_or(T(0)));
  REDU_TRY(upload(padded, d.input));
  if (kind == Kind::segmented)
  {
    REDU_TRY(upload(shape.offsets, d.offsets));
  }
  return make_problem(impl,
                      Problem{kind, dtype_of<T>(), op, shape.n, shape.segments,
                              shape.n > 0 ? d.input.as<const T>() + guard + placement.misalign : nullptr, nullptr,
                              d.offsets.as<const std::int64_t>()},
                      d);
}

// The outputs of `d` after a run, read in the problem's output type (output_dtype: f32 for a bf16/f16
// sum) and widened to long double, exactly.
inline Status download_outputs(const DeviceProblem& d, std::vector<long double>& values)
{
  return visit_dtype(output_dtype(d.problem.dtype, d.problem.op), [&](auto type) {
    std::vector<decltype(type)> host;
    REDU_TRY(download(d.output, host));
    values.assign(host.size(), 0);
    std::transform(host.begin(), host.end(), values.begin(), [](auto v) { return static_cast<long double>(wide(v)); });
    return Status::success();
  });
}

// Segment s of a problem of `kind` over `shape` is [begin, end) of the input.
inline std::int64_t segment_begin(const Shape& shape, Kind kind, std::int64_t s)
{
  return kind == Kind::segmented ? shape.offsets[s] : s * (shape.segments > 0 ? shape.n / shape.segments : 0);
}

inline std::int64_t segment_end(const Shape& shape, Kind kind, std::int64_t s)
{
  return kind == Kind::segmented ? shape.offsets[s + 1] : segment_begin(shape, kind, s) + shape.n / shape.segments;
}

} // namespace redu::test
