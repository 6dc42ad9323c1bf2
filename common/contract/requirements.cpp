#include "common/contract/requirements.hpp"

#include "common/contract/reduction.hpp"
#include "common/host/device_info.hpp"

#include <algorithm>
#include <atomic>
#include <cuda_runtime_api.h>
#include <map>
#include <mutex>
#include <utility>

#ifndef REDU_CUDA_ARCHITECTURES
#define REDU_CUDA_ARCHITECTURES "unknown"
#endif

namespace redu
{

// The library's probe kernel (requirements_probe.cu): an empty kernel compiled like every other source.
const void* library_probe_kernel();

int first_arch(Feature feature)
{
  switch (feature)
  {
  case Feature::warp_redux:
  case Feature::l2_cache_hints:
    return 80;
  case Feature::programmatic_dependent_launch:
  case Feature::thread_block_clusters:
    return 90;
  case Feature::cooperative_launch:
    return 60;
  }
  return 0;
}

const char* to_string(Feature feature)
{
  switch (feature)
  {
  case Feature::warp_redux:
    return "warp_redux";
  case Feature::l2_cache_hints:
    return "l2_cache_hints";
  case Feature::programmatic_dependent_launch:
    return "programmatic_dependent_launch";
  case Feature::thread_block_clusters:
    return "thread_block_clusters";
  case Feature::cooperative_launch:
    return "cooperative_launch";
  }
  return "?";
}

std::string describe(Feature feature)
{
  const char* what = "?";
  switch (feature)
  {
  case Feature::warp_redux:
    what = "warp reductions in one instruction (redux.sync)";
    break;
  case Feature::l2_cache_hints:
    what = "L2 eviction hints (createpolicy)";
    break;
  case Feature::programmatic_dependent_launch:
    what = "programmatic dependent launch (griddepcontrol)";
    break;
  case Feature::thread_block_clusters:
    what = "thread block clusters";
    break;
  case Feature::cooperative_launch:
    what = "cooperative launches";
    break;
  }
  return std::string(what) + " (sm_" + std::to_string(first_arch(feature)) + ")";
}

int Requirements::arch() const
{
  int arch = min_arch;
  for (Feature feature : required)
  {
    arch = std::max(arch, first_arch(feature));
  }
  return arch;
}

bool Requirements::requires_feature(Feature feature) const
{
  return std::find(required.begin(), required.end(), feature) != required.end();
}

bool Requirements::uses(Feature feature) const
{
  return requires_feature(feature) || std::find(optional.begin(), optional.end(), feature) != optional.end();
}

const char* build_cuda_architectures()
{
  return REDU_CUDA_ARCHITECTURES;
}

namespace
{

std::string cc(int arch)
{
  return std::to_string(arch / 10) + "." + std::to_string(arch % 10);
}

// A device attribute a feature needs beyond its architecture; true when there is none.
bool device_allows(Feature feature, const Target& target)
{
  switch (feature)
  {
  case Feature::cooperative_launch:
    return target.cooperative_launch;
  case Feature::thread_block_clusters:
    return target.cluster_launch;
  default:
    return true;
  }
}

const char* attribute_of(Feature feature)
{
  return feature == Feature::cooperative_launch ? "cudaDevAttrCooperativeLaunch" : "cudaDevAttrClusterLaunch";
}

// What to build instead, for a refusal's last words.
std::string build_hint(int arch)
{
  return "build with sm_" + std::to_string(arch) +
         " or later in CMAKE_CUDA_ARCHITECTURES (e.g. -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(arch) +
         ", or `cmake --preset portable`)";
}

} // namespace

std::string describe_code(const Target& target)
{
  if (target.code_arch == 0)
  {
    return "none";
  }
  const std::string sm = "sm_" + std::to_string(target.binary_arch);
  if (target.binary_arch == target.code_arch)
  {
    return sm + " SASS";
  }
  return "compute_" + std::to_string(target.code_arch) + " PTX, JIT-compiled by the driver for " + sm;
}

std::string unavailable_reason(const Requirements& needs, const Target& target)
{
  const std::string gpu = target.device_name + " (compute capability " + cc(target.device_arch) + ")";
  if (target.code_arch == 0)
  {
    return "this binary holds no code that runs on the " + gpu + ": it was built for CUDA architectures " +
           build_cuda_architectures() + (target.no_code.empty() ? "" : " (" + target.no_code + ")") + "; " +
           build_hint(target.device_arch);
  }
  const int arch = needs.arch();
  std::string features;
  for (Feature feature : needs.required)
  {
    features += (features.empty() ? "" : ", ") + describe(feature);
  }
  if (target.device_arch < arch)
  {
    return "needs compute capability " + cc(arch) + " or later" + (features.empty() ? "" : " for " + features) +
           "; the " + gpu + " has not";
  }
  for (Feature feature : needs.required)
  {
    if (!device_allows(feature, target))
    {
      return "needs " + describe(feature) + ", which the " + gpu + " does not offer (" + attribute_of(feature) +
             " is 0)";
    }
  }
  if (target.code_arch < arch)
  {
    return "needs code compiled for sm_" + std::to_string(arch) + " or later" +
           (features.empty() ? "" : " for " + features) + ", and the code this binary runs on the " + gpu + " is " +
           describe_code(target) + " (CUDA architectures " + build_cuda_architectures() + "); " + build_hint(arch);
  }
  return "";
}

bool feature_active(Feature feature, const Target& target)
{
  const int arch = first_arch(feature);
  return target.device_arch >= arch && target.code_arch >= arch && device_allows(feature, target);
}

Status query_target(int device, const void* kernel, Target& target)
{
  target      = Target{};
  int current = 0;
  REDU_CUDA_TRY(cudaGetDevice(&current));
  if (current != device)
  {
    REDU_CUDA_TRY(cudaSetDevice(device));
  }
  const auto query = [&]() -> Status {
    cudaDeviceProp props{};
    REDU_CUDA_TRY(cudaGetDeviceProperties(&props, device));
    target.device_name = props.name;
    target.device_arch = props.major * 10 + props.minor;
    int value          = 0;
    REDU_CUDA_TRY(cudaDeviceGetAttribute(&value, cudaDevAttrCooperativeLaunch, device));
    target.cooperative_launch = value != 0;
    REDU_CUDA_TRY(cudaDeviceGetAttribute(&value, cudaDevAttrClusterLaunch, device));
    target.cluster_launch = value != 0;
    // The runtime picks the binary's best image for this device (SASS of a compatible architecture, else
    // the newest PTX it can JIT) and reports which: that is the code every launch of the kernel runs.
    cudaFuncAttributes attributes{};
    const cudaError_t error = cudaFuncGetAttributes(&attributes, kernel != nullptr ? kernel : library_probe_kernel());
    if (error != cudaSuccess)
    {
      cudaGetLastError(); // no image for this device is not a sticky error: clear it for the next call
      target.no_code = std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
      return Status::success();
    }
    target.code_arch   = attributes.ptxVersion;
    target.binary_arch = attributes.binaryVersion;
    return Status::success();
  };
  const Status status = query();
  if (current != device)
  {
    REDU_CUDA_TRY(cudaSetDevice(current));
  }
  return status;
}

namespace
{

// The verdicts so far, per (implementation, device); every caller after the first reads them under a lock
// (validate() of an implementation that declares requirements) or, for the rest, lock-free below.
std::mutex verdicts_mutex;
std::map<std::pair<const Reduction*, int>, Availability>& verdicts()
{
  static std::map<std::pair<const Reduction*, int>, Availability> map;
  return map;
}

Availability judge(const Reduction& impl, int device)
{
  const Requirements& needs = impl.info().needs;
  Target target;
  if (const Status status = query_target(device, needs.kernel, target); !status.ok())
  {
    return {false, "cannot query device " + std::to_string(device) + ": " + status.message()};
  }
  std::string reason = unavailable_reason(needs, target);
  return {reason.empty(), std::move(reason)};
}

// Implementations that declare nothing share one verdict per device, the library probe's: 0 not asked,
// 1 available, 2 not (the reason is then in verdicts() under a null implementation).
constexpr int verdict_devices                    = 64;
std::atomic<int> plain_verdicts[verdict_devices] = {};

} // namespace

Availability available(const Reduction& impl, int device)
{
  const Requirements& needs = impl.info().needs;
  const bool plain          = needs.kernel == nullptr && needs.arch() == 0 && needs.required.empty();
  const Reduction* key      = plain ? nullptr : &impl;
  if (plain && device >= 0 && device < verdict_devices && plain_verdicts[device].load(std::memory_order_acquire) == 1)
  {
    return {};
  }
  {
    const std::lock_guard<std::mutex> lock(verdicts_mutex);
    const auto found = verdicts().find({key, device});
    if (found != verdicts().end())
    {
      return found->second;
    }
  }
  Availability verdict = judge(impl, device);
  const std::lock_guard<std::mutex> lock(verdicts_mutex);
  verdicts().emplace(std::make_pair(key, device), verdict);
  if (plain && device >= 0 && device < verdict_devices)
  {
    plain_verdicts[device].store(verdict.ok ? 1 : 2, std::memory_order_release);
  }
  return verdict;
}

Status feature_in_use(Feature feature, const void* kernel, bool& active)
{
  int device = 0;
  REDU_CUDA_TRY(cudaGetDevice(&device));
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, Target> targets;
  const std::lock_guard<std::mutex> lock(mutex);
  auto found = targets.find({kernel, device});
  if (found == targets.end())
  {
    Target target;
    REDU_TRY(query_target(device, kernel, target));
    found = targets.emplace(std::make_pair(kernel, device), target).first;
  }
  active = feature_active(feature, found->second);
  return Status::success();
}

Availability available_here(const Reduction& impl)
{
  static const bool has_gpu = no_gpu_reason().empty();
  int device                = 0;
  if (!has_gpu || cudaGetDevice(&device) != cudaSuccess)
  {
    cudaGetLastError();
    return {};
  }
  return available(impl, device);
}

Status check_available(const Reduction& impl)
{
  const Availability verdict = available_here(impl);
  if (verdict.ok)
  {
    return Status::success();
  }
  return Status::from_cuda(cudaErrorNotSupported, impl.info().name + ": not available here: " + verdict.reason);
}

} // namespace redu
