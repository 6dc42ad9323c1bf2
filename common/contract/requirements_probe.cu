// The library's probe kernel: compiled for the build's CUDA architectures like every other source, so the
// image the runtime picks for it on a device is the image it picks for any kernel without a probe of its own
// (common/contract/requirements.hpp, Requirements::kernel).
#include <cuda_runtime.h>

namespace redu
{
namespace
{
__global__ void library_probe() {}
} // namespace

const void* library_probe_kernel()
{
  return reinterpret_cast<const void*>(&library_probe);
}

} // namespace redu
