// Double-precision references that split a method's error |pi_method - pi| into the midpoint rule's own
// error, the rounding of the heights to float, and the float summation. Sums in double by
// cub::DeviceReduce::TransformReduce (a tree: its own rounding, ~log2(n) ulps of double, is far below
// every float effect measured here).
#include "common/host/device_buffer.hpp"
#include "studies/pi/pi.hpp"
#include "studies/pi/rectangles.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <string>
#include <thrust/iterator/counting_iterator.h>

namespace redu::pi
{
namespace
{

// The midpoint rule in double throughout.
struct ExactHeight
{
  std::int64_t n;
  __host__ __device__ double operator()(std::int64_t i) const
  {
    const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(n);
    return 4.0 / (1.0 + x * x);
  }
};

// The float heights every method adds, widened to double.
struct FloatHeight
{
  std::int64_t n;
  __host__ __device__ double operator()(std::int64_t i) const { return rectangle_height(i, n); }
};

template <class Height>
Status double_pi(const char* what, Height height, std::int64_t n, cudaStream_t stream, double& pi)
{
  if (n < 1)
  {
    return Status::invalid(std::string(what) + ": n = " + std::to_string(n) + " must be at least 1");
  }
  DeviceBuffer result, temp;
  REDU_TRY(result.allocate(sizeof(double)));
  std::size_t temp_bytes = 0;
  // One call for the size query (temp == nullptr) and the reduction, as CUB intends.
  const auto reduce = [&](void* temp_storage) {
    const thrust::counting_iterator<std::int64_t> first(0);
    return cub::DeviceReduce::TransformReduce(temp_storage, temp_bytes, first, result.as<double>(), n,
                                              ::cuda::std::plus<double>{}, height, 0.0, stream);
  };
  REDU_CUDA_TRY(reduce(nullptr));
  REDU_TRY(temp.allocate(temp_bytes));
  REDU_CUDA_TRY(reduce(temp.data()));
  double sum = 0.0;
  REDU_CUDA_TRY(cudaMemcpyAsync(&sum, result.data(), sizeof(double), cudaMemcpyDeviceToHost, stream));
  REDU_CUDA_TRY(cudaStreamSynchronize(stream));
  pi = sum / static_cast<double>(n);
  return Status::success();
}

} // namespace

Status midpoint_pi_double(std::int64_t n, cudaStream_t stream, double& pi)
{
  return double_pi("midpoint_pi_double", ExactHeight{n}, n, stream, pi);
}

Status float_heights_pi_double(std::int64_t n, cudaStream_t stream, double& pi)
{
  return double_pi("float_heights_pi_double", FloatHeight{n}, n, stream, pi);
}

} // namespace redu::pi
