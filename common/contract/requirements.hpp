// What an implementation needs from the GPU, and from the code compiled for that GPU, to run.
//
// Two things decide whether a kernel can run here: the device (its compute capability and launch
// attributes) and the code the binary holds for it. They differ whenever the driver JIT-compiles PTX
// written for an older GPU: a binary built for an A100 (compute_80) runs on an H200, but the device code
// it runs was compiled with __CUDA_ARCH__ = 800, so every `if sm_90` branch of it is the older path. A
// cluster launch on that code would start a kernel that has no cluster code in it. So each requirement is
// checked twice: against the device's compute capability and attributes, and against the architecture
// the running code was compiled for (cudaFuncGetAttributes: ptxVersion, binaryVersion).
//
// Features come in two kinds:
//  - required: the implementation is its use of the feature (modern.cluster is clusters); where the device
//    or the code lacks it, the implementation is unavailable, with the reason, and a call is refused
//    (cudaErrorNotSupported) before anything is launched or written;
//  - optional: used where present, with a fallback compiled for older targets (NV_IF_TARGET in device
//    code, the same test on the host where the host picks a launch form); never a reason to refuse,
//    listed so a reader knows which path runs on which GPU (`reduce_bench --list_requirements`).
#pragma once

#include "common/contract/status.hpp"

#include <string>
#include <vector>

namespace redu
{

class Reduction;

// A hardware feature a kernel or its launch can use, with the architecture that brought it.
enum class Feature
{
  warp_redux,                    // redux.sync: a warp's 32-bit integer sum/min/max in one instruction (sm_80)
  l2_cache_hints,                // createpolicy and ld.global...L2::cache_hint: per-load L2 eviction priority (sm_80)
  programmatic_dependent_launch, // griddepcontrol and the launch attribute: a dependent grid starts early (sm_90)
  thread_block_clusters,         // cluster launches and distributed shared memory (sm_90)
  cooperative_launch,            // a grid-wide barrier (sm_60, and cudaDevAttrCooperativeLaunch on the device)
};
inline constexpr Feature all_features[] = {Feature::warp_redux, Feature::l2_cache_hints,
                                           Feature::programmatic_dependent_launch, Feature::thread_block_clusters,
                                           Feature::cooperative_launch};

// The first architecture with the feature, as compute capability x 10 (sm_90 -> 90).
int first_arch(Feature feature);
// Its short name ("thread_block_clusters") and a phrase for messages ("thread block clusters (sm_90)").
const char* to_string(Feature feature);
std::string describe(Feature feature);

// An implementation's requirements (Info::needs). The default, nothing, still asks that the binary hold
// code for the device at all.
struct Requirements
{
  int min_arch = 0;              // a floor of its own, compute capability x 10 (0: none beyond the features')
  std::vector<Feature> required; // refused without these
  std::vector<Feature> optional; // fast path with these, fallback without
  // One of its kernels, whose compiled code is checked (kernel_of below); nullptr: the library's own probe
  // kernel, compiled for the same architectures as every other source of the build.
  const void* kernel = nullptr;

  // The compute capability it needs: the largest of min_arch and its required features' first_arch.
  int arch() const;
  bool requires_feature(Feature feature) const;
  bool uses(Feature feature) const; // required or optional
};

// A kernel's address for Requirements::kernel (any instantiation of a template: all are compiled for the
// same architectures).
template <class Kernel> const void* kernel_of(Kernel* kernel)
{
  return reinterpret_cast<const void*>(kernel);
}

// What a check is made against: a device and the code the binary runs on it. Filled by query_target on a
// GPU; the host tests build their own (a fake device and binary).
struct Target
{
  std::string device_name;
  int device_arch         = 0;     // compute capability x 10 (8.6 -> 86)
  bool cooperative_launch = false; // cudaDevAttrCooperativeLaunch
  bool cluster_launch     = false; // cudaDevAttrClusterLaunch
  int code_arch           = 0;     // the virtual architecture the running code was compiled for (ptxVersion); 0: none
  int binary_arch         = 0;     // the SASS that runs (binaryVersion): not code_arch when the driver JIT-compiled PTX
  std::string no_code;             // the runtime's answer when the binary holds no code for the device
};

// Empty when `needs` can be met on `target`, else one sentence saying why not and what build would do.
std::string unavailable_reason(const Requirements& needs, const Target& target);

// Whether a feature's fast path runs on `target`: the device has it and the code was compiled with it.
bool feature_active(Feature feature, const Target& target);

// "sm_90 SASS" or "compute_80 PTX, JIT-compiled by the driver for sm_90": the code a target runs.
std::string describe_code(const Target& target);

// Device `device` as `kernel` sees it (nullptr: the library's probe kernel). Leaves the current device as
// it was. A binary with no code for the device is not an error: code_arch is 0 and no_code says why.
Status query_target(int device, const void* kernel, Target& target);

// Whether a feature's fast path runs for `kernel` on the current device (feature_active), kept per kernel
// and device: what a launch asks when it picks its launch form (a programmatic dependent launch only
// where the kernel's code waits for its primary: handwritten/segmented/dependent_launch.cuh).
Status feature_in_use(Feature feature, const void* kernel, bool& active);

// The answer to "can `impl` run on device `device` with this binary?", kept per implementation and device.
struct Availability
{
  bool ok = true;
  std::string reason; // empty when ok
};
Availability available(const Reduction& impl, int device);
// The same for the current device; available when there is no usable device at all (nothing to judge
// against: a launch then reports the missing GPU as it always has).
Availability available_here(const Reduction& impl);

// What validate() asks (available_here): success, or cudaErrorNotSupported naming the reason.
Status check_available(const Reduction& impl);

// The CUDA architectures this binary was built for, as CMake was given them ("75-real;80-real;...;120"),
// for the results' provenance and the refusals' messages.
const char* build_cuda_architectures();

} // namespace redu
