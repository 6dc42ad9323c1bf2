// Programmatic dependent launch, device side: the first launch's kernels let the second launch start
// early, and the second launch waits for the first to finish (the host side is launch_second()).
#pragma once

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

} // namespace redu::segmented
