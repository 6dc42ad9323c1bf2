// Time on the GPU's own clock: CUDA events recorded on the stream around the work, read once the stop
// event has completed. A host clock around an asynchronous launch times the launch call, not the work
// (the pi document's mistake, studies/pi/seed_driver.cu).
//
// Two ways to place the events, two clocks every benchmark row reports:
//   host: the events and the call are enqueued one after the other on an idle GPU (a flush before
//         the call is waited for first), as an application calls a reduction. When the GPU finishes
//         faster than the host enqueues, the time includes the host's launch work (a few microseconds
//         per kernel): what a caller waits.
//   gpu:  the stream is first held by a kernel spinning on a host flag (StreamBlocker), the events and
//         the call are enqueued behind it, then the flag is set: the GPU runs them back to back, and the
//         time is the GPU's work alone, as nvbench measures it. A call that waits on the host cannot be
//         timed this way (StreamBlocker explains why); it fails with that reason.
#pragma once

#include "common/contract/status.hpp"
#include "report/stream_blocker.hpp"

#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

namespace redu::report
{

// The middle sample, or the mean of the middle two for an even count: robust to a few slow outliers
// (a preemption, a clock change) that a mean would absorb. Zero for no samples.
double median(std::vector<double> samples);

enum class Clock
{
  host, // events around the call as it is enqueued: host launch time included
  gpu   // events and call enqueued behind a held stream: GPU work only
};
const char* to_string(Clock clock);

class EventTimer
{
public:
  EventTimer() = default;
  EventTimer(const EventTimer&)            = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  ~EventTimer();

  // Creates the two events and the stream blocker; call once before time_calls.
  Status init();

  // `warmups` untimed calls (first-call costs: module loading, allocations in caches, clocks ramping
  // up), a wait for the stream, then `samples` calls each bracketed by the events, one time in
  // milliseconds per call into samples_ms. `before_each`, when given, runs before each timed call,
  // outside the bracket (the benchmark's L2 flush). `call` enqueues its work on `stream`. `clock` says
  // where the events go (above).
  Status time_calls(cudaStream_t stream, int warmups, int samples, const std::function<Status()>& call,
                    std::vector<double>& samples_ms, const std::function<Status()>& before_each = nullptr,
                    Clock clock = Clock::host);

private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_  = nullptr;
  StreamBlocker blocker_;
};

} // namespace redu::report
