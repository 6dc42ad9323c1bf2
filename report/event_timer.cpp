#include "report/event_timer.hpp"

#include <algorithm>

namespace redu::report
{

double median(std::vector<double> samples)
{
  if (samples.empty())
  {
    return 0.0;
  }
  std::sort(samples.begin(), samples.end());
  const std::size_t middle = samples.size() / 2;
  return samples.size() % 2 == 1 ? samples[middle] : 0.5 * (samples[middle - 1] + samples[middle]);
}

EventTimer::~EventTimer()
{
  if (start_ != nullptr)
  {
    cudaEventDestroy(start_);
  }
  if (stop_ != nullptr)
  {
    cudaEventDestroy(stop_);
  }
}

Status EventTimer::init()
{
  REDU_CUDA_TRY(cudaEventCreate(&start_));
  REDU_CUDA_TRY(cudaEventCreate(&stop_));
  return Status::success();
}

Status EventTimer::time_calls(cudaStream_t stream, int warmups, int samples, const std::function<Status()>& call,
                              std::vector<double>& samples_ms, const std::function<Status()>& before_each)
{
  for (int i = 0; i < warmups; ++i)
  {
    REDU_TRY(call());
  }
  REDU_CUDA_TRY(cudaStreamSynchronize(stream));
  samples_ms.clear();
  for (int i = 0; i < samples; ++i)
  {
    if (before_each)
    {
      REDU_TRY(before_each());
    }
    REDU_CUDA_TRY(cudaEventRecord(start_, stream));
    REDU_TRY(call());
    REDU_CUDA_TRY(cudaEventRecord(stop_, stream));
    REDU_CUDA_TRY(cudaEventSynchronize(stop_));
    float ms = 0;
    REDU_CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_));
    samples_ms.push_back(ms);
  }
  return Status::success();
}

} // namespace redu::report
