#include "common/host/device_buffer.hpp"

#include <cuda_runtime_api.h>

namespace redu
{

Status DeviceBuffer::allocate(std::size_t bytes)
{
  reset();
  if (bytes == 0)
  {
    return Status::success();
  }
  REDU_CUDA_TRY(cudaMalloc(&data_, bytes));
  bytes_ = bytes;
  return Status::success();
}

void DeviceBuffer::reset()
{
  if (data_ != nullptr)
  {
    cudaFree(data_);
  }
  data_  = nullptr;
  bytes_ = 0;
}

Status allocate_workspace(const Reduction& impl, const Problem& problem, DeviceBuffer& buffer, Workspace& workspace)
{
  std::size_t bytes = 0;
  REDU_TRY(workspace_bytes(impl, problem, bytes));
  if (bytes > buffer.bytes())
  {
    REDU_TRY(buffer.allocate(bytes));
  }
  if (bytes > 0)
  {
    REDU_CUDA_TRY(cudaMemset(buffer.data(), 0, buffer.bytes()));
    // cudaMemset runs on the legacy default stream, which a non-blocking stream does not wait for.
    REDU_CUDA_TRY(cudaDeviceSynchronize());
  }
  workspace = Workspace{buffer.data(), buffer.bytes()};
  return Status::success();
}

} // namespace redu
