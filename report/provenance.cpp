#include "report/provenance.hpp"

#include "common/contract/requirements.hpp"
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

// The code the GPU ran: the image the runtime picked from the build's architectures for it, from the
// library's probe kernel, compiled like every kernel (common/contract/requirements.hpp).
std::string device_code(int device)
{
  Target target;
  const Status s = query_target(device, nullptr, target);
  if (!s.ok())
  {
    return "unknown: " + s.message();
  }
  return target.code_arch == 0 ? "none: " + target.no_code : describe_code(target);
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
    {"peak_gbps", std::to_string(gpu.peak_gbps)},
    {"peak_source", gpu.peak_source},
    {"copy_gbps", std::to_string(gpu.copy_gbps)},
    {"driver_version", cuda_version_string(device.driver_version)},
    {"cuda_runtime_version", cuda_version_string(device.runtime_version)},
    {"cccl_version", cccl_version()},
    {"build_type", REDU_BUILD_TYPE},
    {"cuda_architectures", build_cuda_architectures()},
    {"device_code", device_code(device.ordinal)},
    {"tuning", tuning()},
  };
}

} // namespace redu::report
