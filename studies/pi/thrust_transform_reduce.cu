// pi in one Thrust call: transform_reduce over a counting iterator, the heights computed on the fly.
// Thrust returns the sum by value, so the call waits for the device, and it allocates and frees its
// temporary storage inside the call; its time includes both. Thrust reports errors by throwing: they are
// caught here and returned as a Status.
#include "studies/pi/device_sum_method.hpp"
#include "studies/pi/pi.hpp"
#include "studies/pi/rectangles.cuh"

#include <cuda/std/functional>
#include <exception>
#include <limits>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system_error.h>
#include <thrust/transform_reduce.h>

namespace redu::pi
{
namespace
{

class ThrustMethod final : public Method
{
public:
  const std::string& name() const override { return name_; }
  std::int64_t max_n() const override { return std::numeric_limits<std::int64_t>::max(); }
  bool synchronous() const override { return true; }

  Status prepare(std::int64_t n) override
  {
    n_ = 0;
    REDU_TRY(check_n(name_, n, max_n()));
    n_ = n;
    return Status::success();
  }

  Status enqueue(cudaStream_t stream) override
  {
    try
    {
      sum_ = thrust::transform_reduce(thrust::cuda::par.on(stream), thrust::counting_iterator<std::int64_t>(0),
                                      thrust::counting_iterator<std::int64_t>(n_), RectangleHeight{n_}, 0.0f,
                                      ::cuda::std::plus<float>{});
    }
    catch (const thrust::system_error& error)
    {
      return Status::from_cuda(static_cast<cudaError_t>(error.code().value()), name_ + ": " + error.what());
    }
    catch (const std::exception& error)
    {
      return Status::from_cuda(cudaErrorUnknown, name_ + ": " + error.what());
    }
    return Status::success();
  }

  Status fetch(cudaStream_t, double& pi) override
  {
    if (n_ == 0)
    {
      return Status::invalid(name_ + ": fetch() before a successful prepare()");
    }
    pi = static_cast<double>(sum_) / static_cast<double>(n_);
    return Status::success();
  }

private:
  std::string name_ = "thrust.transform_reduce";
  std::int64_t n_   = 0;
  float sum_        = 0.0f;
};

} // namespace

std::unique_ptr<Method> make_thrust_method()
{
  return std::make_unique<ThrustMethod>();
}

} // namespace redu::pi
