// Host entry point of a historical exhibit: Harris's kernel 5 (reduce4) exactly as published in 2007, with
// its `volatile` shared-memory last warp and no __syncwarp. It is a data race on Volta and later GPUs
// (independent thread scheduling) and is NOT registered: nothing in the study uses it for a result. It
// exists so a test can run it under `compute-sanitizer --tool racecheck` and show the hazard that
// handwritten/harris/04_unroll_last_warp.cuh (the correct, registered version) removes.
#pragma once

#include "common/status.hpp"

#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>

namespace redu::harris
{

// Largest n: one block of 128 threads per 256 elements in the first pass, within gridDim.x.
std::int64_t legacy_volatile_reduce4_max_n();

// Device workspace the sum of n floats needs (the ping-pong partials of the multi-pass driver).
std::size_t legacy_volatile_reduce4_workspace_bytes(std::int64_t n);

// out[0] = sum of in[0 .. n), float, through the racy kernel on `stream` (asynchronous). Returns an
// invalid-argument Status for n < 0, n > legacy_volatile_reduce4_max_n(), null pointers, or a workspace
// smaller than legacy_volatile_reduce4_workspace_bytes(n); no allocation, no synchronisation.
Status legacy_volatile_reduce4_sum(const float* in, std::int64_t n, float* out, void* ws, std::size_t ws_bytes,
                                   cudaStream_t stream);

} // namespace redu::harris
