// The shared part of the device methods: argument checks, the result buffer, fetch(), and compute_pi.
#include "studies/pi/device_sum_method.hpp"

#include <string>

namespace redu::pi
{

Status check_n(const std::string& method, std::int64_t n, std::int64_t max_n)
{
  if (n < 1 || n > max_n)
  {
    return Status::invalid(method + ": n = " + std::to_string(n) + " outside [1, " + std::to_string(max_n) + "]");
  }
  return Status::success();
}

Status DeviceSumMethod::prepare_sum(std::int64_t n)
{
  n_ = 0;
  REDU_TRY(check_n(name_, n, max_n()));
  if (sum_.bytes() < sizeof(float))
  {
    REDU_TRY(sum_.allocate(sizeof(float)));
  }
  n_ = n;
  return Status::success();
}

Status DeviceSumMethod::fetch(cudaStream_t stream, double& pi)
{
  if (n_ == 0)
  {
    return Status::invalid(name_ + ": fetch() before a successful prepare()");
  }
  float host_sum = 0.0f;
  REDU_CUDA_TRY(cudaMemcpyAsync(&host_sum, sum(), sizeof(float), cudaMemcpyDeviceToHost, stream));
  REDU_CUDA_TRY(cudaStreamSynchronize(stream));
  pi = static_cast<double>(host_sum) / static_cast<double>(n_);
  return Status::success();
}

Status compute_pi(Method& method, std::int64_t n, cudaStream_t stream, double& pi)
{
  REDU_TRY(method.prepare(n));
  REDU_TRY(method.enqueue(stream));
  return method.fetch(stream, pi);
}

} // namespace redu::pi
