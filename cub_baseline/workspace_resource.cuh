// The caller's Workspace as a memory resource for CUB's environment API (CCCL 3.5).
// cub::DeviceReduce::Sum(in, out, n, env) and its kin take no temporary storage: they size it (phase 1,
// nothing launched), allocate it from the env's memory resource, run (phase 2) and free it
// (cub/detail/env_dispatch.cuh, dispatch_with_env). The default resource is cudaMallocAsync/cudaFreeAsync on
// every call; WorkspaceResource hands out the caller's Workspace instead, so a timed call times CUB's kernels
// and not an allocator, as every other implementation here does (problem.hpp, Workspace).
// Sizing: the same call is made with a resource in size-query mode, which records the bytes asked for and
// throws. CUB's temporary_storage::allocate catches any exception and returns cudaErrorMemoryAllocation,
// and dispatch_with_env returns that error before phase 2: the query launches nothing and learns the size.
// This needs CCCL 3.5; with an older CCCL it defines nothing (and its users register nothing).
#pragma once

#include <cuda/version>

#if CCCL_VERSION >= 3005000

#include "common/contract/problem.hpp"
#include "common/contract/status.hpp"

#include <cuda/memory_resource>
#include <cuda/std/execution>
#include <cuda/stream_ref>

#include <cstddef>
#include <cstdint>
#include <string>

namespace redu
{

// What CUB asked a WorkspaceResource for: shared by every copy of it (the env dispatch copies the
// resource out of the env before allocating).
struct WorkspaceRequest
{
  std::size_t bytes = 0; // the last allocation asked for; 0 if CUB never got as far as allocating
  bool refused      = false;
};

// Thrown to end a call at its allocation; CUB catches it (nothing of it escapes to the caller).
struct WorkspaceRefusal
{};

// A cuda::mr::resource that hands out one workspace, or in size-query mode only records the request.
// Deallocation is a no-op: the workspace belongs to the caller.
class WorkspaceResource
{
public:
  static WorkspaceResource size_query(WorkspaceRequest& request) { return WorkspaceResource({}, request, true); }
  static WorkspaceResource on(Workspace ws, WorkspaceRequest& request) { return WorkspaceResource(ws, request, false); }

  void* allocate(::cuda::stream_ref, std::size_t bytes, std::size_t alignment) { return take(bytes, alignment); }
  void deallocate(::cuda::stream_ref, void*, std::size_t, std::size_t) noexcept {}
  void* allocate_sync(std::size_t bytes, std::size_t alignment) { return take(bytes, alignment); }
  void deallocate_sync(void*, std::size_t, std::size_t) noexcept {}

  friend bool operator==(const WorkspaceResource& a, const WorkspaceResource& b)
  {
    return a.ws_.data == b.ws_.data && a.ws_.bytes == b.ws_.bytes && a.request_ == b.request_ && a.query_ == b.query_;
  }
  friend bool operator!=(const WorkspaceResource& a, const WorkspaceResource& b) { return !(a == b); }

private:
  WorkspaceResource(Workspace ws, WorkspaceRequest& request, bool query)
      : ws_(ws)
      , request_(&request)
      , query_(query)
  {}

  void* take(std::size_t bytes, std::size_t alignment)
  {
    request_->bytes = bytes;
    const bool fits = ws_.data != nullptr && bytes <= ws_.bytes
                   && reinterpret_cast<std::uintptr_t>(ws_.data) % alignment == 0;
    if (query_ || !fits)
    {
      request_->refused = !query_;
      throw WorkspaceRefusal{};
    }
    return ws_.data;
  }

  Workspace ws_;
  WorkspaceRequest* request_;
  bool query_;
};

static_assert(::cuda::mr::resource<WorkspaceResource>, "CUB's env API takes a cuda::mr::resource");

// The env of a call: its stream, the workspace as memory resource, and any requirements or tuning
// (cuda::execution::require(...), cuda::execution::tune(...)).
template <class... Extra>
auto workspace_env(cudaStream_t stream, const WorkspaceResource& resource, Extra... extra)
{
  return ::cuda::std::execution::env{::cuda::stream_ref{stream},
                                     ::cuda::std::execution::prop{::cuda::mr::get_memory_resource, resource}, extra...};
}

// The bytes `call(resource)`, a CUB env call made with `resource` in its env, asks for; launches nothing.
template <class Call>
std::size_t env_workspace_bytes(Call call)
{
  WorkspaceRequest request;
  static_cast<void>(call(WorkspaceResource::size_query(request))); // ends at its allocation, as intended
  return request.bytes;
}

// Runs `call(resource)` on the workspace; a workspace too small for it is reported as such (CUB itself
// says only cudaErrorMemoryAllocation), and nothing is launched then.
template <class Call>
Status env_run(Workspace ws, const char* what, Call call)
{
  WorkspaceRequest request;
  const cudaError_t error = call(WorkspaceResource::on(ws, request));
  if (request.refused)
  {
    return Status::invalid(std::string(what) + ": the workspace (" + std::to_string(ws.bytes)
                           + " bytes) cannot hold the " + std::to_string(request.bytes) + " bytes CUB asked for");
  }
  return Status::from_cuda(error, what);
}

} // namespace redu

#endif // CCCL_VERSION >= 3005000
