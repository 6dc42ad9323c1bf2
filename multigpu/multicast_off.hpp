// NVLink multicast (NVLS: NVSwitch-resident reductions, multimem loads and stores) stays off on the
// shared machine: the device tool's KINDS.md says why. Every multi-GPU program calls
// keep_multicast_off() first, before any CUDA or NCCL call, because NCCL reads NCCL_NVLS_ENABLE once,
// when it initialises. Unset variables are set to the value that means off; a variable set to anything
// else stops the program with a message, rather than be silently overridden or silently obeyed.
// Nothing in multigpu/ calls cuMulticastCreate or any multimem instruction.
#pragma once

#include "common/contract/status.hpp"
#include "multigpu/rank_env.hpp"

#include <functional>

namespace redu::multigpu
{

struct RequiredSetting
{
  const char* name;
  const char* value; // the value that keeps multicast off
};

inline constexpr RequiredSetting multicast_off_settings[] = {
  {"NCCL_NVLS_ENABLE", "0"},                 // NCCL: no NVLS algorithms, no multicast objects
  {"NVSHMEM_DISABLE_NVLS", "1"},             // NVSHMEM (if a library brings it in)
  {"TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"}, // PyTorch symmetric memory (if loaded in the process)
};

// setenv, or a map in the tests: returns false when the variable could not be set.
using EnvSet = std::function<bool(const char* name, const char* value)>;
EnvSet process_environment_setter();

Status keep_multicast_off(const EnvLookup& env, const EnvSet& set);
// The same on this process's environment.
Status keep_multicast_off();

} // namespace redu::multigpu
