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

// What Thrust needs on top of the CUB temporary storage it forwards to: its device-side result slot
// and the allocator's 256-byte alignment.
constexpr std::size_t thrust_workspace_slack = 1024;

} // namespace redu
