// The exact sum's launch with an explicit shape, for the test that its bits do not depend on the shape
// (tests/reproducible_sum_test.cpp). precision.exact_sum picks its shape from the device; this entry
// point takes any shape instead.
#pragma once

#include "common/contract/status.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace redu::precision
{

// Workspace bytes for the exact sum of T (float or double): the global limbs, the non-finite flags and
// the ticket; zero-filled by the caller once, left zero by every call.
std::size_t exact_sum_workspace_bytes(bool is_double);

// Sums in[0, n) into *out with `blocks` blocks of `threads` threads (128 or 256), each taking
// `tiles_per_block` consecutive tiles; refuses a shape that does not cover the input.
Status exact_sum_with_shape(const float* in, std::int64_t n, float* out, void* workspace, int blocks, int threads,
                            std::int64_t tiles_per_block, cudaStream_t stream);
Status exact_sum_with_shape(const double* in, std::int64_t n, double* out, void* workspace, int blocks, int threads,
                            std::int64_t tiles_per_block, cudaStream_t stream);

} // namespace redu::precision
