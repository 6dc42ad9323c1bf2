// One rank's handle on the job: its GPU, its stream and its NCCL communicator. Two ways to make one:
//   - init_process: one process per GPU (the benchmark; what a multi-host job does): rank and world
//     from the launcher's environment (rank_env.hpp), the NCCL id through NCCL_COMM_ID or a file
//     (unique_id_file.hpp);
//   - init_thread: one thread per GPU inside one process (the GoogleTest cases, which then need no
//     launcher): the id is passed in memory. The all-reduce kernels then reach peer buffers by plain
//     pointers instead of CUDA IPC (peer_buffer.hpp tells the two apart by process id).
// Either way the code above it is the same: it enqueues work on stream() and NCCL calls on comm().
#pragma once

#include "common/contract/status.hpp"
#include "common/host/device_buffer.hpp"
#include "multigpu/rank_env.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>

namespace redu::multigpu
{

inline constexpr int max_ranks = 8; // one host's NVLink domain on an HGX board

// An NCCL call's result as a Status, with NCCL's own last-error text.
Status from_nccl(ncclResult_t result, const char* call);
#define REDU_NCCL_TRY(call)                                                 \
  do                                                                        \
  {                                                                         \
    const ncclResult_t redu_nccl_result_ = (call);                          \
    if (redu_nccl_result_ != ncclSuccess)                                   \
    {                                                                       \
      return ::redu::multigpu::from_nccl(redu_nccl_result_, #call);         \
    }                                                                       \
  } while (0)

// "2.28.9 (compiled against 2.28.9)": the library loaded and the header built against.
std::string nccl_version_text();

class Communicator
{
public:
  Communicator() = default;
  Communicator(const Communicator&)            = delete;
  Communicator& operator=(const Communicator&) = delete;
  ~Communicator();

  // Selects GPU info.local_rank, gets the id (NCCL_COMM_ID, else the file at id_file), joins. Blocks until
  // every rank has joined.
  Status init_process(const RankInfo& info, const std::string& id_file);
  // Selects `device` on the calling thread and joins with the id every thread was given.
  Status init_thread(int rank, int world, int device, const ncclUniqueId& id);

  int rank() const { return rank_; }
  int world() const { return world_; }
  int device() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  ncclComm_t comm() const { return comm_; }
  // The smallest SM count over the ranks: the hand-written kernels launch at most one block per SM and
  // need the same grid on every rank (their barriers pair block b with block b).
  int sm_count() const { return sm_count_; }

  // Enqueues a 4-byte all-reduce on stream(): no rank's later work on the stream starts before every
  // rank has reached this point.
  Status enqueue_barrier();
  // enqueue_barrier, then waits for it on the host.
  Status barrier();
  // The largest `value` over the ranks, on every rank (a time: the slowest rank's).
  Status max_over_ranks(double value, double& max);

private:
  Status finish_init(const ncclUniqueId& id);

  int rank_         = 0;
  int world_        = 1;
  int device_       = 0;
  int sm_count_     = 0;
  cudaStream_t stream_ = nullptr;
  ncclComm_t comm_     = nullptr;
  DeviceBuffer scratch_; // 8 doubles for barriers and small reductions
};

} // namespace redu::multigpu
