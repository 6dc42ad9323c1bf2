// pi in one CUB call: cub::DeviceReduce::TransformReduce over a counting iterator, the heights computed on
// the fly; temporary storage is sized and allocated in prepare(), so the timed call only launches.
#include "studies/pi/device_sum_method.hpp"
#include "studies/pi/rectangles.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <limits>
#include <thrust/iterator/counting_iterator.h>

namespace redu::pi
{
namespace
{

class CubMethod final : public DeviceSumMethod
{
public:
  CubMethod()
      : DeviceSumMethod("cub.transform_reduce")
  {}

  std::int64_t max_n() const override { return std::numeric_limits<std::int64_t>::max(); }

  Status prepare(std::int64_t n) override
  {
    REDU_TRY(prepare_sum(n));
    temp_bytes_ = 0;
    REDU_CUDA_TRY(reduce(nullptr, nullptr));
    return temp_.allocate(temp_bytes_);
  }

  Status enqueue(cudaStream_t stream) override
  {
    REDU_CUDA_TRY(reduce(temp_.data(), stream));
    return Status::success();
  }

private:
  // One call for the size query (temp == nullptr) and the reduction, as CUB intends.
  cudaError_t reduce(void* temp, cudaStream_t stream)
  {
    return cub::DeviceReduce::TransformReduce(temp, temp_bytes_, thrust::counting_iterator<std::int64_t>(0), sum(), n(),
                                              ::cuda::std::plus<float>{}, RectangleHeight{n()}, 0.0f, stream);
  }

  std::size_t temp_bytes_ = 0;
  DeviceBuffer temp_;
};

} // namespace

std::unique_ptr<Method> make_cub_method()
{
  return std::make_unique<CubMethod>();
}

} // namespace redu::pi
