#include "common/host/device_info.hpp"

#include <cuda_runtime_api.h>

#include <cctype>

namespace redu
{

double peak_bandwidth_gbps(int memory_clock_khz, int bus_width_bits)
{
  return 2.0 * static_cast<double>(memory_clock_khz) * 1e3 * (bus_width_bits / 8.0) / 1e9;
}

double DeviceInfo::peak_gbps() const
{
  return peak_bandwidth_gbps(memory_clock_khz, bus_width_bits);
}

std::string gpu_slug(const std::string& device_name)
{
  std::string slug;
  for (char c : device_name)
  {
    if (std::isalnum(static_cast<unsigned char>(c)))
    {
      slug += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    else if (!slug.empty() && slug.back() != '-')
    {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-')
  {
    slug.pop_back();
  }
  return slug.empty() ? "unknown-gpu" : slug;
}

std::string no_gpu_reason()
{
  int count               = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess)
  {
    cudaGetLastError(); // clear the sticky-free error so later calls start clean
    // Without a driver the runtime reports cudaErrorInsufficientDriver ("driver version is
    // insufficient"), which reads like an old driver; a driver version of 0 means there is none.
    int driver = 0;
    const bool no_driver = cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0;
    return std::string(no_driver ? "no NVIDIA GPU or driver found" : "no usable CUDA device") + " ("
         + cudaGetErrorName(error) + ": " + cudaGetErrorString(error) + ")";
  }
  if (count == 0)
  {
    return "no NVIDIA GPU found (the driver reports none)";
  }
  return "";
}

std::string cuda_version_string(int version)
{
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

Status query_device(int ordinal, DeviceInfo& info)
{
  info.ordinal = ordinal;
  cudaDeviceProp prop{};
  REDU_CUDA_TRY(cudaGetDeviceProperties(&prop, ordinal));
  info.name                = prop.name;
  info.cc_major            = prop.major;
  info.cc_minor            = prop.minor;
  info.sm_count            = prop.multiProcessorCount;
  info.l2_bytes            = prop.l2CacheSize;
  info.global_memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  REDU_CUDA_TRY(cudaDeviceGetAttribute(&info.memory_clock_khz, cudaDevAttrMemoryClockRate, ordinal));
  REDU_CUDA_TRY(cudaDeviceGetAttribute(&info.bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, ordinal));
  REDU_CUDA_TRY(cudaDriverGetVersion(&info.driver_version));
  REDU_CUDA_TRY(cudaRuntimeGetVersion(&info.runtime_version));
  return Status::success();
}

} // namespace redu
