// Programmatic dependent launch: the first launch's kernels let the second launch start early, and the
// second launch waits for the first to finish (device side); the second launch is started with
// programmatic stream serialisation (host side, launch_dependent()).
#pragma once

#include "common/contract/requirements.hpp"
#include "common/contract/status.hpp"
#include "common/device/per_device.cuh"

#include <cuda_runtime.h>
#include <nv/target>

namespace redu::segmented
{

// Lets the second launch (started with programmatic stream serialisation, see launch_second()) be
// scheduled once every block of this launch has started: its blocks then take the SM slots that this
// launch's last wave leaves free and wait in griddepcontrol.wait, so its launch latency overlaps our tail
// instead of following it. A no-op when no dependent launch waits.
__device__ __forceinline__ void allow_dependent_launch()
{
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("griddepcontrol.launch_dependents;" ::: "memory");))
}

// Launched as a programmatic dependent of the first launch: wait until that grid has finished and its
// writes are visible (a no-op when launched the ordinary way).
__device__ __forceinline__ void wait_for_first_launch()
{
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("griddepcontrol.wait;" ::: "memory");))
}

// Host side: launches kernel<<<blocks, threads, 0, stream>>>(args...) as a programmatic dependent of
// the launch before it on `stream`, where both the device and the kernel's code have griddepcontrol
// (Feature::programmatic_dependent_launch); an ordinary launch otherwise. The code counts as much as the
// device: code compiled for an older target (PTX JIT-compiled on a Hopper) has no griddepcontrol.wait,
// and started early it would read the first launch's output before it is written. The first launch's
// kernels are compiled in the same source, for the same targets, so the answer is one per device: asked
// of the first kernel launched here and kept (cached_per_device), not looked up again on every launch.
inline Status dependent_launch_in_use(const void* kernel, bool& dependent)
{
  static std::atomic<int> cache[cached_devices] = {}; // 1: no, 2: yes
  int answer = 0;
  REDU_TRY(cached_per_device(cache, answer, [kernel](int, int& value) {
    bool active = false;
    REDU_TRY(feature_in_use(Feature::programmatic_dependent_launch, kernel, active));
    value = active ? 2 : 1;
    return Status::success();
  }));
  dependent = answer == 2;
  return Status::success();
}

template <class... Params, class... Args>
Status launch_dependent(void (*kernel)(Params...), unsigned blocks, unsigned threads, cudaStream_t stream,
                        Args... args)
{
  bool dependent = false;
  REDU_TRY(dependent_launch_in_use(kernel_of(kernel), dependent));
  cudaLaunchAttribute overlap{};
  overlap.id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim  = dim3(blocks);
  config.blockDim = dim3(threads);
  config.stream   = stream;
  config.attrs    = &overlap;
  config.numAttrs = dependent ? 1 : 0;
  REDU_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, args...));
  return Status::success();
}

} // namespace redu::segmented
