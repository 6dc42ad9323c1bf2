// The seed's calcRectangles kernel, one thread per rectangle, with a 64-bit index.
#include "studies/pi/pi.hpp"
#include "studies/pi/rectangles.cuh"

#include <limits>
#include <string>

namespace redu::pi
{
namespace
{

constexpr int rectangle_threads = 256;

__global__ void calc_rectangles(float* rectangles, std::int64_t n)
{
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
  {
    rectangles[i] = rectangle_height(i, n);
  }
}

} // namespace

Status launch_rectangles(float* rectangles, std::int64_t n, cudaStream_t stream)
{
  const std::int64_t blocks = n / rectangle_threads + (n % rectangle_threads != 0 ? 1 : 0);
  if (n < 0 || blocks > std::numeric_limits<std::int32_t>::max())
  {
    return Status::invalid("launch_rectangles: n = " + std::to_string(n) + " outside [0, (2^31 - 1) * 256]");
  }
  if (n == 0)
  {
    return Status::success();
  }
  calc_rectangles<<<static_cast<unsigned int>(blocks), rectangle_threads, 0, stream>>>(rectangles, n);
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

} // namespace redu::pi
