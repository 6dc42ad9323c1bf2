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

const char* to_string(Clock clock)
{
  return clock == Clock::host ? "host" : "gpu";
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
  REDU_TRY(blocker_.init());
  return Status::success();
}

Status EventTimer::time_calls(cudaStream_t stream, int warmups, int samples, const std::function<Status()>& call,
                              std::vector<double>& samples_ms, const std::function<Status()>& before_each,
                              Clock clock)
{
  for (int i = 0; i < warmups; ++i)
  {
    REDU_TRY(call());
  }
  REDU_CUDA_TRY(cudaStreamSynchronize(stream));
  samples_ms.clear();
  // The flush (if any), the events and the call. On the host clock the flush is waited for, so the GPU
  // is idle when the start event is enqueued, as for a caller's first call (a flush still running would
  // let the host enqueue the call behind it and hide the launch time this clock counts); on the GPU
  // clock everything is queued behind the held stream.
  const auto enqueue_sample = [&]() -> Status {
    if (before_each)
    {
      REDU_TRY(before_each());
      if (clock == Clock::host)
      {
        REDU_CUDA_TRY(cudaStreamSynchronize(stream));
      }
    }
    REDU_CUDA_TRY(cudaEventRecord(start_, stream));
    REDU_TRY(call());
    REDU_CUDA_TRY(cudaEventRecord(stop_, stream));
    return Status::success();
  };
  for (int i = 0; i < samples; ++i)
  {
    if (clock == Clock::gpu)
    {
      REDU_TRY(blocker_.block(stream));
      const Status enqueued = enqueue_sample();
      blocker_.release(); // also after a failed enqueue: held work must never be left waiting
      REDU_TRY(enqueued);
      REDU_CUDA_TRY(cudaEventSynchronize(stop_));
      REDU_TRY(blocker_.check());
    }
    else
    {
      REDU_TRY(enqueue_sample());
      REDU_CUDA_TRY(cudaEventSynchronize(stop_));
    }
    float ms = 0;
    REDU_CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_));
    samples_ms.push_back(ms);
  }
  return Status::success();
}

} // namespace redu::report
