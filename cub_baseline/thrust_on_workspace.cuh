// Thrust algorithms allocate temporary storage on every call and return their value to the host.
// Here they get slices of the caller's workspace instead (no cudaMalloc inside a timed call), and the
// returned value is stored into the problem's output, as every other implementation leaves it.
#pragma once

#include "common/contract/problem.hpp"
#include "common/contract/status.hpp"

#include <thrust/execution_policy.h>

#include <cstddef>
#include <exception>
#include <new>
#include <string>

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

// Runs `call(policy)`, a Thrust algorithm on `stream` with temporary storage from `ws`, and writes the
// value it returns to p.output. Thrust synchronises to return that value; the copy back to the device
// is synchronised too, because `result` lives on this stack frame.
template <class T, class Call>
Status thrust_to_output(const Problem& p, Workspace ws, cudaStream_t stream, const char* what, Call call)
{
  T result{};
  WorkspaceAllocator allocator(ws);
  try
  {
    result = call(thrust::cuda::par(allocator).on(stream));
  }
  catch (const std::exception& error)
  {
    return Status::invalid(std::string(what) + " failed: " + error.what());
  }
  REDU_CUDA_TRY(cudaMemcpyAsync(p.output, &result, sizeof(T), cudaMemcpyHostToDevice, stream));
  REDU_CUDA_TRY(cudaStreamSynchronize(stream));
  return Status::success();
}

} // namespace redu
