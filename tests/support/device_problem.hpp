// One problem on the device, built from host values: the input (optionally between poison guards and
// misaligned), the output and indices, the offsets of a segmented shape, and the implementation's
// workspace. Every test that runs a problem of host values builds it here.
#pragma once

#include "reference.hpp"
#include "run_helpers.hpp"
#include "shapes.hpp"

#include "common/contract/reduction.hpp"
#include "common/host/device_buffer.hpp"

#include <algorithm>
#include <optional>
#include <vector>

namespace redu::test
{

struct DeviceProblem
{
  DeviceBuffer input, output, indices, offsets, workspace_buffer;
  Problem problem;
  Workspace workspace;
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

// Builds `d` for `kind`/`op` over `shape` with input `values`; sizes, allocates and zero-fills the
// workspace of `impl` unless it is null (a caller that shares one workspace across problems).
template <class T>
Status make_device_problem(Kind kind, Op op, const Shape& shape, const std::vector<T>& values, const Reduction* impl,
                           DeviceProblem& d, const Placement<T>& placement = {})
{
  const std::size_t guard = placement.guard ? 256 / sizeof(T) : 0;
  std::vector<T> padded(guard + placement.misalign, placement.guard.value_or(T(0)));
  padded.insert(padded.end(), values.begin(), values.end());
  padded.insert(padded.end(), guard, placement.guard.value_or(T(0)));
  REDU_TRY(upload(padded, d.input));
  REDU_TRY(d.output.allocate(static_cast<std::size_t>(shape.segments) * size_of(output_dtype(dtype_of<T>(), op))));
  REDU_TRY(d.indices.allocate(static_cast<std::size_t>(shape.segments) * sizeof(std::int64_t)));
  if (kind == Kind::segmented)
  {
    REDU_TRY(upload(shape.offsets, d.offsets));
  }
  d.problem = Problem{kind,
                      dtype_of<T>(),
                      op,
                      shape.n,
                      shape.segments,
                      shape.n > 0 ? d.input.as<const T>() + guard + placement.misalign : nullptr,
                      d.output.data(),
                      d.offsets.as<const std::int64_t>(),
                      is_arg(op) ? d.indices.as<std::int64_t>() : nullptr};
  d.workspace = Workspace{};
  return impl != nullptr ? allocate_workspace(*impl, d.problem, d.workspace_buffer, d.workspace) : Status::success();
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
