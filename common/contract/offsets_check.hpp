// Segment offsets live in device memory, so the host-side contract checks (validate) cannot see them.
// This check reads them on the device before a segmented reduction runs: a bad array is reported as a
// clear error and the reduction is never launched.
#pragma once

#include "common/contract/problem.hpp"
#include "common/contract/status.hpp"

#include <cuda_runtime_api.h>

namespace redu
{

// Requires p.kind == Kind::segmented with p.segments + 1 readable offsets. Succeeds when
// 0 <= offsets[0] <= offsets[1] <= ... <= offsets[segments] == n; otherwise names the first offending
// position and its values. Reads the offsets once (8 bytes per segment) and synchronises `stream`;
// refused while `stream` captures a CUDA graph.
Status check_offsets(const Problem& p, cudaStream_t stream);

} // namespace redu
