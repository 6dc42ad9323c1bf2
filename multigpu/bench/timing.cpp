#include "bench.hpp"

#include <vector>

namespace redu::multigpu
{

Status time_on_ranks(Communicator& comm, report::EventTimer& timer, report::Clock clock, const Timing& timing, int calls,
                     const std::function<Status()>& call, double& us)
{
  const auto batch = [&]() -> Status {
    for (int c = 0; c < calls; ++c)
    {
      REDU_TRY(call());
    }
    return Status::success();
  };
  const auto line_up = [&]() -> Status { return comm.enqueue_barrier(); };
  std::vector<double> samples_ms;
  REDU_TRY(timer.time_calls(comm.stream(), timing.warmups, timing.samples, batch, samples_ms, line_up, clock));
  const double mine = report::median(samples_ms) * 1e3 / calls;
  return comm.max_over_ranks(mine, us);
}

Status time_alone(cudaStream_t stream, report::EventTimer& timer, report::Clock clock, const Timing& timing, int calls,
                  const std::function<Status()>& call, double& us)
{
  const auto batch = [&]() -> Status {
    for (int c = 0; c < calls; ++c)
    {
      REDU_TRY(call());
    }
    return Status::success();
  };
  std::vector<double> samples_ms;
  REDU_TRY(timer.time_calls(stream, timing.warmups, timing.samples, batch, samples_ms, nullptr, clock));
  us = report::median(samples_ms) * 1e3 / calls;
  return Status::success();
}

} // namespace redu::multigpu
