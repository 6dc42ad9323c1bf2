#include "common/host/problem_buffers.hpp"

#include <cstdint>

namespace redu
{
namespace
{

Status grow(DeviceBuffer& buffer, std::size_t bytes)
{
  return bytes > buffer.bytes() ? buffer.allocate(bytes) : Status::success();
}

} // namespace

Status make_problem(const Reduction* impl, const Problem& problem, ProblemBuffers& b)
{
  REDU_TRY(grow(b.output, problem.output_bytes()));
  b.problem         = problem;
  b.problem.output  = b.output.data();
  b.problem.indices = nullptr;
  if (is_arg(problem.op))
  {
    REDU_TRY(grow(b.indices, static_cast<std::size_t>(problem.segments) * sizeof(std::int64_t)));
    b.problem.indices = b.indices.as<std::int64_t>();
  }
  b.workspace = Workspace{};
  return impl != nullptr ? allocate_workspace(*impl, b.problem, b.workspace_buffer, b.workspace) : Status::success();
}

} // namespace redu
