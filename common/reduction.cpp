#include "reduction.hpp"

#include "offsets_check.hpp"

#include <algorithm>
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
  return (dtype == DType::i32 || dtype == DType::f32) ? 4 : 8;
}

bool is_arg(Op op)
{
  return op == Op::argmin || op == Op::argmax;
}

bool is_floating(DType dtype)
{
  return dtype == DType::f32 || dtype == DType::f64;
}

namespace
{
template <class T, class Value>
bool contains(const std::vector<T>& values, Value value)
{
  return std::find(values.begin(), values.end(), value) != values.end();
}
} // namespace

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
  const Info& info       = impl.info();
  const std::string what = info.name + ": ";
  if (!info.supports(p.kind))
  {
    return Status::invalid(what + "does not support " + to_string(p.kind) + " problems");
  }
  if (!info.supports(p.dtype))
  {
    return Status::invalid(what + "does not support element type " + to_string(p.dtype));
  }
  if (!info.supports(p.op))
  {
    return Status::invalid(what + "does not support operator " + to_string(p.op));
  }
  if (p.n < 0 || p.segments < 0)
  {
    return Status::invalid(what + "negative size (n = " + std::to_string(p.n) + ", segments = "
                           + std::to_string(p.segments) + ")");
  }
  if (p.n > info.max_n)
  {
    return Status::invalid(what + "n = " + std::to_string(p.n) + " exceeds this implementation's limit of "
                           + std::to_string(info.max_n) + " elements");
  }
  if (p.kind == Kind::full && p.segments != 1)
  {
    return Status::invalid(what + "a full reduction has exactly one output (segments = 1)");
  }
  if (p.kind == Kind::batched && (p.segments == 0 ? p.n != 0 : p.n % p.segments != 0))
  {
    return Status::invalid(what + "batched problem: n = " + std::to_string(p.n) + " is not a multiple of rows = "
                           + std::to_string(p.segments));
  }
  if (p.kind == Kind::segmented && p.offsets == nullptr)
  {
    return Status::invalid(what + "segmented problem without offsets");
  }
  if (p.n > 0 && p.input == nullptr)
  {
    return Status::invalid(what + "null input pointer with n = " + std::to_string(p.n));
  }
  if (p.segments > 0 && p.output == nullptr)
  {
    return Status::invalid(what + "null output pointer");
  }
  if (p.segments > 0 && is_arg(p.op) && p.indices == nullptr)
  {
    return Status::invalid(what + "null indices pointer for " + to_string(p.op));
  }
  return Status::success();
}

Status workspace_bytes(const Reduction& impl, const Problem& problem, std::size_t& bytes)
{
  bytes = 0;
  REDU_TRY(validate(impl, problem));
  return impl.query_workspace(problem, bytes);
}

Status run(const Reduction& impl, const Problem& problem, Workspace workspace, cudaStream_t stream,
           OffsetsCheck offsets_check)
{
  REDU_TRY(validate(impl, problem));
  std::size_t needed = 0;
  REDU_TRY(impl.query_workspace(problem, needed));
  if (workspace.bytes < needed || (needed > 0 && workspace.data == nullptr))
  {
    return Status::invalid(impl.info().name + ": workspace of " + std::to_string(workspace.bytes)
                           + " bytes is smaller than the " + std::to_string(needed) + " bytes required");
  }
  if (problem.segments == 0)
  {
    return Status::success(); // nothing to produce
  }
  if (problem.kind == Kind::segmented && offsets_check == OffsetsCheck::verify)
  {
    REDU_TRY(check_offsets(problem, stream));
  }
  return impl.launch(problem, workspace, stream);
}

namespace
{
std::vector<std::unique_ptr<Reduction>>& owned()
{
  static std::vector<std::unique_ptr<Reduction>> reductions;
  return reductions;
}

std::vector<const Reduction*>& sorted()
{
  static std::vector<const Reduction*> view;
  return view;
}
} // namespace

bool register_reduction(std::unique_ptr<Reduction> impl)
{
  if (find(impl->info().name) != nullptr)
  {
    throw std::logic_error("reduction registered twice: " + impl->info().name);
  }
  sorted().push_back(impl.get());
  std::sort(sorted().begin(), sorted().end(), [](const Reduction* a, const Reduction* b) {
    return a->info().name < b->info().name;
  });
  owned().push_back(std::move(impl));
  return true;
}

const std::vector<const Reduction*>& registry()
{
  return sorted();
}

const Reduction* find(const std::string& name)
{
  for (const Reduction* r : sorted())
  {
    if (r->info().name == name)
    {
      return r;
    }
  }
  return nullptr;
}

} // namespace redu
