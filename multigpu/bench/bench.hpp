// multigpu_bench's parts: timing across ranks (timing.cpp) and the --verify checks (verify.cpp).
#pragma once

#include "common/contract/status.hpp"
#include "multigpu/all_reduce.hpp"
#include "multigpu/communicator.hpp"
#include "report/event_timer.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace redu::multigpu
{

struct Timing
{
  int warmups = 3;
  int samples = 10;
};

// The time of one call on the slowest rank, in microseconds. Each sample enqueues `calls` calls back to
// back between two CUDA events and counts its time / calls; the median sample is taken on every rank and
// the largest over the ranks reported. Before each sample an NCCL barrier lines the ranks up (on the GPU
// clock it runs behind the held stream, right before the start event, so the ranks start within a few
// microseconds of each other; back-to-back calls then amortise what skew is left).
//   Clock::host  the calls as a program enqueues them: the host's launch work counts when the GPU is faster
//   Clock::gpu   the calls queued behind a held stream: GPU work only (report/event_timer.hpp)
Status time_on_ranks(Communicator& comm, report::EventTimer& timer, report::Clock clock, const Timing& timing, int calls,
                     const std::function<Status()>& call, double& us);

// The same on this rank alone (no barrier, no max): the one-GPU baselines.
Status time_alone(cudaStream_t stream, report::EventTimer& timer, report::Clock clock, const Timing& timing, int calls,
                  const std::function<Status()>& call, double& us);

// One rank's all-reduce output (count elements of elem, copied to the host) against the host
// reference: bit-exact for the hand-written variants, within a few roundings for NCCL.
Status check_all_reduce_output(AllReduceVariant variant, Elem elem, int world, std::int64_t count, std::uint32_t seed_base,
                               const std::vector<unsigned char>& got);

// Every variant at awkward sizes against the host reference, through this process's ranks (CUDA IPC
// between processes). Prints one line per failure; `checks` counts what passed.
Status verify_all(Communicator& comm, int& checks);

} // namespace redu::multigpu
