#include "multigpu/rank_env.hpp"

#include <cstdlib>
#include <limits>

namespace redu::multigpu
{
namespace
{

struct Family
{
  const char* launcher;
  const char* rank;
  const char* size;
  const char* local_rank;
  const char* local_size;
};

constexpr Family families[] = {
  {"torchrun-style (RANK, WORLD_SIZE)", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"},
  {"Open MPI (OMPI_COMM_WORLD_*)", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
   "OMPI_COMM_WORLD_LOCAL_SIZE"},
  {"MPICH (PMI_*)", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
  // SLURM_NTASKS_PER_NODE can read "2(x3)": the local size stays unknown (taken as the world size).
  {"Slurm (SLURM_*)", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", nullptr},
};

Status read_int(const EnvLookup& env, const char* name, int low, int& value)
{
  const char* text = env(name);
  char* end        = nullptr;
  const long read  = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || read < low || read > std::numeric_limits<int>::max())
  {
    return Status::invalid(std::string(name) + "=" + text + ": expected an integer >= " + std::to_string(low));
  }
  value = static_cast<int>(read);
  return Status::success();
}

bool is_set(const EnvLookup& env, const char* name)
{
  if (name == nullptr)
  {
    return false;
  }
  const char* value = env(name);
  return value != nullptr && *value != '\0';
}

} // namespace

EnvLookup process_environment()
{
  return [](const char* name) { return std::getenv(name); };
}

Status rank_from_environment(const EnvLookup& env, RankInfo& info)
{
  info = RankInfo{};
  for (const Family& family : families)
  {
    if (!is_set(env, family.rank) || !is_set(env, family.size))
    {
      continue;
    }
    REDU_TRY(read_int(env, family.rank, 0, info.rank));
    REDU_TRY(read_int(env, family.size, 1, info.world));
    if (info.rank >= info.world)
    {
      return Status::invalid(std::string(family.rank) + "=" + std::to_string(info.rank) + " is not below "
                             + family.size + "=" + std::to_string(info.world));
    }
    info.local_rank  = info.rank;
    info.local_world = info.world;
    if (is_set(env, family.local_rank))
    {
      REDU_TRY(read_int(env, family.local_rank, 0, info.local_rank));
    }
    if (is_set(env, family.local_size))
    {
      REDU_TRY(read_int(env, family.local_size, 1, info.local_world));
    }
    if (info.local_rank >= info.local_world)
    {
      return Status::invalid(std::string(family.local_rank) + "=" + std::to_string(info.local_rank)
                             + " is not below the processes on this host (" + std::to_string(info.local_world) + ")");
    }
    info.source = family.launcher;
    return Status::success();
  }
  return Status::success();
}

} // namespace redu::multigpu
