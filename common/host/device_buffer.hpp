// Owning device allocations for tests and benchmarks (library code never allocates).
#pragma once

#include "common/contract/problem.hpp"
#include "common/contract/reduction.hpp"
#include "common/contract/status.hpp"

#include <cstddef>
#include <utility>

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

} // namespace redu
