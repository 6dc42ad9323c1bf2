// Programmatic dependent launch: the first launch's kernels let the second launch start early, and the
// second launch waits for the first to finish (device side); the second launch is started with
// programmatic stream serialisation (host side, launch_dependent()).
#pragma once

#include "common/contract/status.hpp"
#include "common/device/per_device.cuh"

#include <cuda_runtime.h>

namespace redu::segmented
{

// Lets the second launch (started with programmatic stream serialisation, see launch_second()) be
// scheduled once every block of this launch has started: its blocks then take the SM slots that this
// launch's last wave leaves free and wait in griddepcontrol.wait, so its launch latency overlaps our tail
// instead of following it. A no-op when no dependent launch waits.
__device__ __forceinline__ void allow_dependent_launch()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Launched as a programmatic dependent of the first launch: wait until that grid has finished and its
// writes are visible (a no-op when launched the ordinary way).
__device__ __forceinline__ void wait_for_first_launch()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Host side: launches kernel<<<blocks, threads, 0, stream>>>(args...) as a programmatic dependent of
// the launch before it on `stream` (an ordinary launch before sm_90, where the attribute does not exist).
template <class... Params, class... Args>
Status launch_dependent(void (*kernel)(Params...), unsigned blocks, unsigned threads, cudaStream_t stream,
                        Args... args)
{
  int major = 0;
  REDU_TRY(compute_capability_major(major));
  cudaLaunchAttribute overlap{};
  overlap.id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim  = dim3(blocks);
  config.blockDim = dim3(threads);
  config.stream   = stream;
  config.attrs    = &overlap;
  config.numAttrs = major >= 9 ? 1 : 0;
  REDU_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, args...));
  return Status::success();
}

} // namespace redu::segmented
