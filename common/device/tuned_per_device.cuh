// A launch-shape value from the current GPU model's tuning table (common/host/tuning.hpp), kept per
// device like every other per-device answer (per_device.cuh): the table is read once, a launch pays
// nothing for it. Each kernel family names its values ("modern.waves", "argext.waves") and documents
// their defaults and rules in its shape header.
#pragma once

#include "common/contract/status.hpp"
#include "common/device/per_device.cuh"
#include "common/host/tuning.hpp"

#include <string>

namespace redu
{

// The table's value called `name`, or `fallback` without one; a value outside [lowest, highest] is an
// error naming it, never silently clamped. `cache` is the caller's own, one per name.
// `device` is the current device, as the caller already asked for it (as in cached_per_device).
inline Status tuned_per_device(std::atomic<int> (&cache)[cached_devices], int device, const char* name, int fallback,
                               int lowest, int highest, int& value)
{
  return cached_per_device(cache, device, value, [&](int, int& v) {
    long long t = 0;
    REDU_TRY(tuned_value(name, fallback, t));
    if (t < lowest || t > highest)
    {
      return Status::invalid(std::string("tuning table: ") + name + " = " + std::to_string(t) + " is outside ["
                             + std::to_string(lowest) + ", " + std::to_string(highest) + "]");
    }
    v = static_cast<int>(t);
    return Status::success();
  });
}

// The same, for the current device.
inline Status tuned_per_device(std::atomic<int> (&cache)[cached_devices], const char* name, int fallback, int lowest,
                               int highest, int& value)
{
  int device = 0;
  REDU_CUDA_TRY(cudaGetDevice(&device));
  return tuned_per_device(cache, device, name, fallback, lowest, highest, value);
}

} // namespace redu
