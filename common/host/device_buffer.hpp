// Owning device allocations for tests, benchmarks and studies, and copies of host values to and from them
// (library code never allocates).
#pragma once

#include "common/contract/problem.hpp"
#include "common/contract/reduction.hpp"
#include "common/contract/status.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace redu
{

class DeviceBuffer
{
public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr))
      , bytes_(std::exchange(other.bytes_, 0))
  {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept
  {
    if (this != &other)
    {
      reset();
      data_  = std::exchange(other.data_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&)            = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // Replaces the contents with `bytes` of fresh, uninitialised device memory.
  Status allocate(std::size_t bytes);
  void reset();

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  template <class T>
  T* as() const
  {
    return static_cast<T*>(data_);
  }

private:
  void* data_        = nullptr;
  std::size_t bytes_ = 0;
};

// Sizes, allocates and zero-fills the workspace `impl` needs for `problem` (the contract in
// problem.hpp), outside any timed region.
Status allocate_workspace(const Reduction& impl, const Problem& problem, DeviceBuffer& buffer, Workspace& workspace);

// Host values to a fresh device buffer, and a buffer back to host values.
template <class T>
Status upload(const std::vector<T>& host, DeviceBuffer& device)
{
  REDU_TRY(device.allocate(host.size() * sizeof(T)));
  if (!host.empty())
  {
    REDU_CUDA_TRY(cudaMemcpy(device.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  // A pageable copy may still be in flight on the legacy stream, which non-blocking streams do not
  // wait for: finish it before anything is launched on one (tests and the benchmark use such streams).
  REDU_CUDA_TRY(cudaDeviceSynchronize());
  return Status::success();
}

template <class T>
Status download(const DeviceBuffer& device, std::vector<T>& host)
{
  host.resize(device.bytes() / sizeof(T));
  if (!host.empty())
  {
    REDU_CUDA_TRY(cudaMemcpy(host.data(), device.data(), host.size() * sizeof(T), cudaMemcpyDeviceToHost));
  }
  return Status::success();
}

} // namespace redu
