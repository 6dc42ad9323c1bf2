// Host side: which form the 16-byte loads of a read-once input take (InputLoad in vector_load.cuh), chosen
// from the input's size and the device's L2 size.
//
// Rule: evict_first when the input is larger than the L2, evict_normal when it fits. The modern and halves
// families take the fitting case as plain read-only loads, which the L2 keeps at that same default priority
// and which read faster than the explicit hint (InputLoad<false>, vector_load.cuh); the other families keep
// the hint, not yet re-measured.
// Why, for inputs larger than the L2: nothing of them can still be resident when the next pass starts, so
// their lines should replace each other, not the lines already resident. The H200 read large inputs
// faster this way; the H100 did not move.
// Why, for inputs that fit: a reduction often reads what the previous kernel just wrote, or the same data
// again, and then the input is already in the L2. evict_first lines only displace one another, so an
// evict_first input keeps a small share of the L2 however much is free: with it, modern.atomic ran no
// faster with the L2 hot than cold at 2^22-2^23 floats on either GPU, where the floor search's hot
// winners all used evict_normal or plain read-only loads. The measurements: handwritten/modern/DESIGN.md.
#pragma once

#include "common/contract/status.hpp"
#include "common/device/per_device.cuh"

#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

namespace redu
{

// The current device's L2 size in bytes.
inline Status l2_cache_bytes(int& bytes)
{
  static std::atomic<int> cache[cached_devices] = {};
  return cached_per_device(cache, bytes, [](int device, int& value) {
    REDU_CUDA_TRY(cudaDeviceGetAttribute(&value, cudaDevAttrL2CacheSize, device));
    return Status::success();
  });
}

// The rule above, for an input of n elements of T on the current device.
template <class T> Status input_evict_first(std::int64_t n, bool& evict_first)
{
  int l2 = 0;
  REDU_TRY(l2_cache_bytes(l2));
  evict_first = static_cast<std::size_t>(n) * sizeof(T) > static_cast<std::size_t>(l2);
  return Status::success();
}

} // namespace redu
