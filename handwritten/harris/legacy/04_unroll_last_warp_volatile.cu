// Host launcher of the historical exhibit in 04_unroll_last_warp_volatile.cuh (declared in
// legacy_volatile.hpp). Not registered: it only exists to be shown racy under compute-sanitizer.
#include "handwritten/harris/legacy/04_unroll_last_warp_volatile.cuh"
#include "handwritten/harris/legacy/legacy_volatile.hpp"

#include <string>

namespace redu::harris
{
namespace
{

// The same shape as the registered reduce4: 128 threads, two elements per thread, one tile per block.
constexpr PassShape volatile_shape = {harris_block_threads, 2 * harris_block_threads, max_grid_blocks};

} // namespace

std::int64_t legacy_volatile_reduce4_max_n()
{
  return max_n_of(volatile_shape);
}

std::size_t legacy_volatile_reduce4_workspace_bytes(std::int64_t n)
{
  return n < 0 ? 0 : multi_pass_workspace_bytes<float>(volatile_shape, n);
}

Status legacy_volatile_reduce4_sum(const float* in, std::int64_t n, float* out, void* ws, std::size_t ws_bytes,
                                   cudaStream_t stream)
{
  if (n < 0 || n > legacy_volatile_reduce4_max_n())
  {
    return Status::invalid("legacy_volatile_reduce4_sum: n = " + std::to_string(n) + " outside [0, "
                           + std::to_string(legacy_volatile_reduce4_max_n()) + "]");
  }
  if ((n > 0 && in == nullptr) || out == nullptr)
  {
    return Status::invalid("legacy_volatile_reduce4_sum: null input or output pointer");
  }
  const std::size_t needed = legacy_volatile_reduce4_workspace_bytes(n);
  if (ws_bytes < needed || (needed > 0 && ws == nullptr))
  {
    return Status::invalid("legacy_volatile_reduce4_sum: workspace of " + std::to_string(ws_bytes)
                           + " bytes is smaller than the " + std::to_string(needed) + " bytes required");
  }
  return multi_pass_reduce<float, SumOp>(volatile_shape, legacy::volatile_reduce4, in, n, out, Workspace{ws, ws_bytes},
                                         stream);
}

} // namespace redu::harris
