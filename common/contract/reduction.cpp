#include "common/contract/reduction.hpp"

#include "common/contract/offsets_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace redu
{

const char* to_string(DType dtype)
{
  switch (dtype)
  {
    case DType::i32:
      return "i32";
    case DType::i64:
      return "i64";
    case DType::f32:
      return "f32";
    case DType::f64:
      return "f64";
    case DType::bf16:
      return "bf16";
    case DType::f16:
      return "f16";
  }
  return "?";
}

const char* to_string(Determinism determinism)
{
  switch (determinism)
  {
    case Determinism::not_guaranteed:
      return "not_guaranteed";
    case Determinism::run_to_run:
      return "run_to_run";
    case Determinism::gpu_to_gpu:
      return "gpu_to_gpu";
  }
  return "?";
}

const char* to_string(Op op)
{
  switch (op)
  {
    case Op::sum:
      return "sum";
    case Op::min:
      return "min";
    case Op::max:
      return "max";
    case Op::sum_squares:
      return "sum_squares";
    case Op::argmin:
      return "argmin";
    case Op::argmax:
      return "argmax";
  }
  return "?";
}

const char* to_string(Kind kind)
{
  switch (kind)
  {
    case Kind::full:
      return "full";
    case Kind::batched:
      return "batched";
    case Kind::segmented:
      return "segmented";
  }
  return "?";
}

std::size_t size_of(DType dtype)
{
  switch (dtype)
  {
    case DType::bf16:
    case DType::f16:
      return 2;
    case DType::i32:
    case DType::f32:
      return 4;
    case DType::i64:
    case DType::f64:
      break;
  }
  return 8;
}

bool is_arg(Op op)
{
  return op == Op::argmin || op == Op::argmax;
}

namespace
{
template <class T, class Value>
bool contains(const std::vector<T>& values, Value value)
{
  return std::find(values.begin(), values.end(), value) != values.end();
}

// A named device byte range of a problem, for the alignment and overlap rules of problem.hpp.
struct Range
{
  const char* name;
  const void* begin;
  std::size_t bytes;
  std::size_t alignment;

  bool overlaps(const Range& other) const
  {
    const auto a = reinterpret_cast<std::uintptr_t>(begin), b = reinterpret_cast<std::uintptr_t>(other.begin);
    return bytes > 0 && other.bytes > 0 && a < b + other.bytes && b < a + bytes;
  }
};

// The ranges a call touches, the written ones first; a fixed array, so the checks allocate nothing.
struct Ranges
{
  Range items[5];
  std::size_t count = 0;
  void push_back(const Range& r) { items[count++] = r; }
};

// The workspace, when one is given, comes first, then the outputs, the input and the offsets.
Ranges ranges_of(const Problem& p, Workspace workspace = {})
{
  Ranges ranges;
  if (workspace.bytes > 0)
  {
    ranges.push_back({"workspace", workspace.data, workspace.bytes, 1});
  }
  if (p.segments > 0)
  {
    ranges.push_back({"output", p.output, p.output_bytes(), size_of(output_dtype(p.dtype, p.op))});
    if (is_arg(p.op))
    {
      ranges.push_back({"indices", p.indices, static_cast<std::size_t>(p.segments) * sizeof(std::int64_t),
                        sizeof(std::int64_t)});
    }
  }
  if (p.n > 0)
  {
    ranges.push_back({"input", p.input, p.input_bytes(), size_of(p.dtype)});
  }
  if (p.kind == Kind::segmented)
  {
    ranges.push_back({"offsets", p.offsets, static_cast<std::size_t>(p.segments + 1) * sizeof(std::int64_t),
                      sizeof(std::int64_t)});
  }
  return ranges;
}

// Refuses a problem in which one of the first `written` ranges (what a launch writes) overlaps any
// other range.
Status check_overlaps(const std::string& name, const Ranges& ranges, std::size_t written)
{
  for (std::size_t w = 0; w < written; ++w)
  {
    for (std::size_t r = 0; r < ranges.count; ++r)
    {
      if (r != w && ranges.items[w].overlaps(ranges.items[r]))
      {
        return Status::invalid(name + ": the " + ranges.items[w].name + " overlaps the " + ranges.items[r].name
                               + " (what a call writes may alias nothing else)");
      }
    }
  }
  return Status::success();
}
} // namespace

bool ContractDeparture::applies_to(DType dtype) const
{
  return contains(dtypes, dtype);
}

bool Info::supports(DType dtype) const
{
  return contains(dtypes, dtype);
}
bool Info::supports(Op op) const
{
  return contains(ops, op);
}
bool Info::supports(Kind kind) const
{
  return contains(kinds, kind);
}

Status validate(const Reduction& impl, const Problem& p)
{
  const Info& info = impl.info();
  // Messages are built only on refusal: the success path allocates nothing.
  const auto refuse = [&](const std::string& why) { return Status::invalid(info.name + ": " + why); };
  if (!info.supports(p.kind))
  {
    return refuse(std::string("does not support ") + to_string(p.kind) + " problems");
  }
  if (!info.supports(p.dtype))
  {
    return refuse(std::string("does not support element type ") + to_string(p.dtype));
  }
  if (!info.supports(p.op))
  {
    return refuse(std::string("does not support operator ") + to_string(p.op));
  }
  if (p.n < 0 || p.segments < 0)
  {
    return refuse(std::string("negative size (n = ") + std::to_string(p.n) + ", segments = "
                           + std::to_string(p.segments) + ")");
  }
  if (p.n > info.max_n)
  {
    return refuse(std::string("n = ") + std::to_string(p.n) + " exceeds this implementation's limit of "
                           + std::to_string(info.max_n) + " elements");
  }
  if (p.kind == Kind::full && p.segments != 1)
  {
    return refuse(std::string("a full reduction has exactly one output (segments = 1)"));
  }
  if (p.kind == Kind::batched && (p.segments == 0 ? p.n != 0 : p.n % p.segments != 0))
  {
    return refuse(std::string("batched problem: n = ") + std::to_string(p.n) + " is not a multiple of rows = "
                           + std::to_string(p.segments));
  }
  if (p.kind == Kind::segmented && p.offsets == nullptr)
  {
    return refuse(std::string("segmented problem without offsets"));
  }
  if (p.n > 0 && p.input == nullptr)
  {
    return refuse(std::string("null input pointer with n = ") + std::to_string(p.n));
  }
  if (p.segments > 0 && p.output == nullptr)
  {
    return refuse(std::string("null output pointer"));
  }
  if (p.segments > 0 && is_arg(p.op) && p.indices == nullptr)
  {
    return refuse(std::string("null indices pointer for ") + to_string(p.op));
  }
  if (p.kind == Kind::segmented && p.segments == 0 && p.n > 0)
  {
    return refuse(std::string("segmented problem with no segments but n = ") + std::to_string(p.n)
                           + " (offsets = {0} must end at n)");
  }
  const Ranges ranges = ranges_of(p);
  for (std::size_t i = 0; i < ranges.count; ++i)
  {
    const Range& r = ranges.items[i];
    if (reinterpret_cast<std::uintptr_t>(r.begin) % r.alignment != 0)
    {
      return refuse(std::string("the ") + r.name + " pointer is not aligned to " + std::to_string(r.alignment)
                             + " bytes");
    }
  }
  const std::size_t written = p.segments > 0 ? (is_arg(p.op) ? 2 : 1) : 0;
  REDU_TRY(check_overlaps(info.name, ranges, written));
  return check_available(impl); // requirements.hpp
}

Status workspace_bytes(const Reduction& impl, const Problem& problem, std::size_t& bytes)
{
  bytes = 0;
  REDU_TRY(validate(impl, problem));
  return impl.workspace_bytes(problem, bytes);
}

Status prepare(const Reduction& impl, const Problem& problem, Workspace workspace, Call& call)
{
  REDU_TRY(validate(impl, problem));
  std::size_t needed = 0;
  REDU_TRY(impl.workspace_bytes(problem, needed));
  if (workspace.bytes < needed || (needed > 0 && workspace.data == nullptr))
  {
    return Status::invalid(impl.info().name + ": workspace of " + std::to_string(workspace.bytes)
                           + " bytes is smaller than the " + std::to_string(needed) + " bytes required");
  }
  if (needed > 0 && reinterpret_cast<std::uintptr_t>(workspace.data) % workspace_alignment != 0)
  {
    return Status::invalid(impl.info().name + ": the workspace pointer is not aligned to "
                           + std::to_string(workspace_alignment) + " bytes (cudaMalloc's alignment)");
  }
  if (needed > 0)
  {
    REDU_TRY(check_overlaps(impl.info().name, ranges_of(problem, workspace), 1)); // the workspace against the rest
  }
  call.impl_      = &impl;
  call.problem_   = problem;
  call.workspace_ = workspace;
  return Status::success();
}

Status Call::run(cudaStream_t stream) const
{
  if (impl_ == nullptr)
  {
    return Status::invalid("redu::Call::run: the call was not prepared (redu::prepare)");
  }
  // Only an implementation that cannot be captured asks the driver: the launch of every other one,
  // which a benchmark times, carries no extra call.
  if (!impl_->info().graph_capture)
  {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    REDU_CUDA_TRY(cudaStreamIsCapturing(stream, &capture));
    if (capture != cudaStreamCaptureStatusNone)
    {
      return Status::invalid(impl_->info().name + ": cannot be captured into a CUDA graph (it synchronises with "
                             "the host); run it outside the capture");
    }
  }
  if (problem_.segments == 0)
  {
    return Status::success(); // nothing to produce
  }
  return impl_->run(problem_, workspace_, stream);
}

Status run(const Reduction& impl, const Problem& problem, Workspace workspace, cudaStream_t stream,
           OffsetsCheck offsets_check)
{
  Call call;
  REDU_TRY(prepare(impl, problem, workspace, call));
  if (problem.kind == Kind::segmented && offsets_check == OffsetsCheck::verify && problem.segments > 0)
  {
    REDU_TRY(check_offsets(problem, stream));
  }
  return call.run(stream);
}

double sum_error_factor(const Reduction& impl, const Problem& problem, std::int64_t count)
{
  if (count < 2)
  {
    return 0; // one term or none: nothing is rounded
  }
  if (impl.info().error_factor != nullptr)
  {
    return impl.info().error_factor(problem.dtype, count);
  }
  const double tree_depth = std::ceil(std::log2(static_cast<double>(count))) + 1;
  const auto unordered    = impl.info().unordered_partials;
  return 2 * tree_depth + (unordered != nullptr ? static_cast<double>(unordered(problem)) : 0.0);
}

namespace
{
std::vector<std::unique_ptr<Reduction>>& owned()
{
  static std::vector<std::unique_ptr<Reduction>> reductions;
  return reductions;
}

// Sorted by name: the lessons, baselines and exercises, and the exhibits apart.
std::vector<const Reduction*>& sorted(Role role)
{
  static std::vector<const Reduction*> studied, shown;
  return role == Role::exhibit ? shown : studied;
}
} // namespace

bool register_reduction(std::unique_ptr<Reduction> impl)
{
  if (find(impl->info().name) != nullptr)
  {
    throw std::logic_error("reduction registered twice: " + impl->info().name);
  }
  std::vector<const Reduction*>& list = sorted(impl->info().role);
  list.push_back(impl.get());
  std::sort(list.begin(), list.end(), [](const Reduction* a, const Reduction* b) {
    return a->info().name < b->info().name;
  });
  owned().push_back(std::move(impl));
  return true;
}

const std::vector<const Reduction*>& registry()
{
  return sorted(Role::lesson);
}

const std::vector<const Reduction*>& exhibits()
{
  return sorted(Role::exhibit);
}

const Reduction* find(const std::string& name)
{
  for (const auto* list : {&registry(), &exhibits()})
  {
    for (const Reduction* r : *list)
    {
      if (r->info().name == name)
      {
        return r;
      }
    }
  }
  return nullptr;
}

namespace
{
std::vector<AbsentReduction>& absent_list()
{
  static std::vector<AbsentReduction> absent;
  return absent;
}
} // namespace

const std::vector<AbsentReduction>& absent_from_build()
{
  return absent_list();
}

bool register_absent(AbsentReduction absent)
{
  std::vector<AbsentReduction>& list = absent_list();
  list.push_back(std::move(absent));
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return true;
}

} // namespace redu
