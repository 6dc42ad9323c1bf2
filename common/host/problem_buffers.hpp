// The device memory a problem writes: its outputs, its indices (argmin/argmax) and the workspace of the
// implementation that runs it, sized from the contract (Problem::output_bytes, workspace_bytes) in one
// place for the tests, the benchmark and the studies. The input and the segment offsets stay with the
// caller, since where they come from differs: host values uploaded per problem (tests, studies), random
// data filled on the device and offsets shared by every case of a shape (the benchmark).
#pragma once

#include "common/contract/reduction.hpp"
#include "common/host/device_buffer.hpp"

namespace redu
{

struct ProblemBuffers
{
  DeviceBuffer output, indices, workspace_buffer;
  Problem problem;
  Workspace workspace;
};

// Sets `b.problem` to `problem` with its output (and, for argmin/argmax, its indices) in `b`, and sizes,
// allocates and zero-fills the workspace of `impl` for it unless `impl` is null (a caller that shares one
// workspace across problems). Buffers only grow: a fresh set holds exactly one problem's outputs, which
// the tests read back whole; a reused one (the benchmark's) serves case after case without reallocating.
// It allocates and synchronises, so it belongs before a timed region, never in one.
Status make_problem(const Reduction* impl, const Problem& problem, ProblemBuffers& b);

} // namespace redu
