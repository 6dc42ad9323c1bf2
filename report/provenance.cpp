#include "report/provenance.hpp"

#include "common/host/tuning.hpp"

#include <cub/version.cuh>

#ifndef REDU_BUILD_TYPE
#define REDU_BUILD_TYPE "unknown"
#endif

namespace redu::report
{
namespace
{

// CUB_VERSION is major * 100000 + minor * 100 + patch (300001 is 3.0.1); CUB, Thrust and libcu++ share
// CCCL's version.
std::string cccl_version()
{
  return std::to_string(CUB_VERSION / 100000) + "." + std::to_string(CUB_VERSION / 100 % 1000) + "."
         + std::to_string(CUB_VERSION % 100);
}

// The launch-shape table the kernels read on this GPU (common/host/tuning.hpp). Not part of the code_id
// (scripts/code_id.sh): a table is data measured on one GPU model, so it is named here, values included.
std::string tuning()
{
  std::string description;
  const Status s = tuning_in_use(description);
  return s.ok() ? description : "unreadable: " + s.message();
}

} // namespace

std::vector<ContextEntry> provenance(const std::string& program, const std::string& code_id, const MeasuredGpu& gpu)
{
  const DeviceInfo& device = gpu.device;
  return {
    {"program", program},
    {"code_id", code_id},
    {"gpu_name", device.name},
    {"gpu_slug", gpu_slug(device.name)},
    {"compute_capability", std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor)},
    {"sm_count", std::to_string(device.sm_count)},
    {"l2_bytes", std::to_string(device.l2_bytes)},
    {"memory_clock_khz", std::to_string(device.memory_clock_khz)},
    {"bus_width_bits", std::to_string(device.bus_width_bits)},
    {"peak_gbps", std::to_string(device.peak_gbps())},
    {"copy_gbps", std::to_string(gpu.copy_gbps)},
    {"driver_version", cuda_version_string(device.driver_version)},
    {"cuda_runtime_version", cuda_version_string(device.runtime_version)},
    {"cccl_version", cccl_version()},
    {"build_type", REDU_BUILD_TYPE},
    {"tuning", tuning()},
  };
}

} // namespace redu::report
