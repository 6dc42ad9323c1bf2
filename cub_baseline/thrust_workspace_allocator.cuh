// Thrust algorithms allocate temporary storage on every call; this allocator hands them slices of the
// caller's workspace instead, so no cudaMalloc happens inside a timed call.
#pragma once

#include "common/problem.hpp"

#include <cstddef>
#include <new>

namespace redu
{

// Hands Thrust slices of the caller's workspace instead of fresh device allocations.
class WorkspaceAllocator
{
public:
  using value_type = char;
  explicit WorkspaceAllocator(Workspace ws)
      : base_(static_cast<char*>(ws.data))
      , bytes_(ws.bytes)
  {}
  char* allocate(std::ptrdiff_t n)
  {
    const std::size_t aligned = (static_cast<std::size_t>(n) + 255) / 256 * 256;
    if (used_ + aligned > bytes_)
    {
      throw std::bad_alloc();
    }
    char* slice = base_ + used_;
    used_ += aligned;
    return slice;
  }
  void deallocate(char*, std::size_t) {}

private:
  char* base_;
  std::size_t bytes_;
  std::size_t used_ = 0;
};

// Thrust forwards to CUB with its own offset type and tuning, so its temporary storage is not exactly
// what a cub::DeviceReduce query reports for the same problem (measured: larger for int32 at n = 65537).
// Twice the CUB figure plus room for Thrust's result slot and the 256-byte alignment covers it; an
// allocation that still does not fit fails as std::bad_alloc, which the callers report as an error.
inline std::size_t thrust_workspace_bytes(std::size_t cub_bytes)
{
  return 2 * cub_bytes + 64 * 1024;
}

} // namespace redu
