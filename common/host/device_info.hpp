// What the benchmark context and the tests need to know about the GPU, read the CUDA 13 way
// (cudaDeviceProp::memoryClockRate is gone: cudaDeviceGetAttribute is the source of clocks and bus width).
#pragma once

#include "common/contract/status.hpp"

#include <cstdint>
#include <string>

namespace redu
{

struct DeviceInfo
{
  int ordinal = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t global_memory_bytes = 0;
  int memory_clock_khz = 0;
  int bus_width_bits = 0;
  int driver_version = 0;  // e.g. 13000
  int runtime_version = 0; // e.g. 13000
  double peak_gbps() const;
};

// Theoretical DRAM bandwidth in GB/s (10^9 bytes): double data rate x clock x bus width in bytes.
double peak_bandwidth_gbps(int memory_clock_khz, int bus_width_bits);

// "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3": the results/<gpu-slug>/ folder name.
std::string gpu_slug(const std::string& device_name);

// A one-line reason when no usable CUDA device is present, empty when one is.
std::string no_gpu_reason();

Status query_device(int ordinal, DeviceInfo& info);

// "13.0" style version from the CUDA integer encoding (1000 * major + 10 * minor).
std::string cuda_version_string(int version);

} // namespace redu
