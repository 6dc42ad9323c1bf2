// Time on the GPU's own clock: CUDA events recorded on the stream around the work, read once the stop
// event has completed. A host clock around an asynchronous launch times the launch call, not the work
// (the pi document's mistake, studies/pi/seed_driver.cu).
#pragma once

#include "common/contract/status.hpp"

#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

namespace redu::report
{

// The middle sample, or the mean of the middle two for an even count: robust to a few slow outliers
// (a preemption, a clock change) that a mean would absorb. Zero for no samples.
double median(std::vector<double> samples);

class EventTimer
{
public:
  EventTimer() = default;
  EventTimer(const EventTimer&)            = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  ~EventTimer();

  // Creates the two events; call once before time_calls.
  Status init();

  // `warmups` untimed calls (first-call costs: module loading, allocations in caches, clocks ramping
  // up), a wait for the stream, then `samples` calls each bracketed by the events, one time in
  // milliseconds per call into samples_ms. `before_each`, when given, runs before each timed call,
  // outside the bracket (the benchmark's L2 flush). `call` enqueues its work on `stream`.
  Status time_calls(cudaStream_t stream, int warmups, int samples, const std::function<Status()>& call,
                    std::vector<double>& samples_ms, const std::function<Status()>& before_each = nullptr);

private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_  = nullptr;
};

} // namespace redu::report
