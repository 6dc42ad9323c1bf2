// Host-side answers about the current device that a launch needs on every call (occupancy, compute
// capability), computed once per device and kept: the occupancy calculator and attribute queries take
// microseconds of host time, a whole small reduction takes a few, so they must not run per call.
#pragma once

#include "common/contract/status.hpp"

#include <atomic>
#include <cuda_runtime.h>

namespace redu
{

// Devices whose answers are memoised; further devices are queried on every call.
inline constexpr int cached_devices = 64;

// A per-device answer computed once by `query(device, value)` and kept for later calls. Answers are
// positive (0 means "not asked yet"; a query's answer below 1 is kept as 1). Racing first calls compute
// the same value, so relaxed accesses are enough.
// This form takes the device a caller has already asked for, so a launch that reads several answers asks
// the runtime once (cudaGetDevice is itself a host call inside the timed region).
template <class Query>
Status cached_per_device(std::atomic<int> (&cache)[cached_devices], int device, int& value, Query query)
{
  if (device < cached_devices)
  {
    value = cache[device].load(std::memory_order_relaxed);
    if (value > 0)
    {
      return Status::success();
    }
  }
  REDU_TRY(query(device, value));
  value = value < 1 ? 1 : value;
  if (device < cached_devices)
  {
    cache[device].store(value, std::memory_order_relaxed);
  }
  return Status::success();
}

// The same, for the current device.
template <class Query> Status cached_per_device(std::atomic<int> (&cache)[cached_devices], int& value, Query query)
{
  int device = 0;
  REDU_CUDA_TRY(cudaGetDevice(&device));
  return cached_per_device(cache, device, value, query);
}

// Blocks of `Kernel` (launched with Threads threads, no dynamic shared memory) resident on the current
// device at once: occupancy x multiprocessors.
template <auto Kernel, int Threads> Status resident_blocks(int& blocks)
{
  static std::atomic<int> cache[cached_devices] = {};
  return cached_per_device(cache, blocks, [](int device, int& value) {
    int per_sm = 0;
    int sms    = 0;
    REDU_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, Threads, 0));
    REDU_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    value = per_sm * sms;
    return Status::success();
  });
}

// The current device's compute capability, major number (9 for sm_90).
inline Status compute_capability_major(int& major)
{
  static std::atomic<int> cache[cached_devices] = {};
  return cached_per_device(cache, major, [](int device, int& value) {
    REDU_CUDA_TRY(cudaDeviceGetAttribute(&value, cudaDevAttrComputeCapabilityMajor, device));
    return Status::success();
  });
}

} // namespace redu
