// Who am I: the rank, the world size and the GPU of this process, read from the environment variables
// the common launchers set, so the same binary runs under torchrun, mpirun, srun or
// scripts/multigpu_launch.sh unchanged. One process per GPU; LOCAL_RANK picks the GPU on this host.
#pragma once

#include "common/contract/status.hpp"

#include <functional>
#include <string>

namespace redu::multigpu
{

struct RankInfo
{
  int rank        = 0; // 0 .. world - 1, over every host
  int world       = 1; // number of processes (= GPUs) in the job
  int local_rank  = 0; // this process's GPU on its host
  int local_world = 1; // processes on this host
  std::string source = "none (one process)"; // which launcher's variables were read
};

// getenv, or a map in the tests: returns null for an unset variable.
using EnvLookup = std::function<const char*(const char* name)>;
EnvLookup process_environment();

// Tried in order, the first family whose rank and size are both set wins:
//   RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE                     (torchrun, scripts/multigpu_launch.sh)
//   OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE              (Open MPI's mpirun)
//   PMI_RANK, PMI_SIZE, MPI_LOCALRANKID, MPI_LOCALNRANKS               (MPICH / Intel MPI)
//   SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID                          (srun)
// A family without its local variables is taken as one host (local = global); the GPU is local_rank,
// and the only check against the host is that it has a GPU of that number. None set: rank 0 of 1.
// A value that is not a number, or a rank outside [0, size), is an error naming the variable.
Status rank_from_environment(const EnvLookup& env, RankInfo& info);

} // namespace redu::multigpu
