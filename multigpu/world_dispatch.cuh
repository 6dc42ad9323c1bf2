// The all-reduce kernels take the number of GPUs as a template argument G, so that their loops over the
// peers unroll and their per-peer registers are arrays of known size; a call knows it only at run time.
// dispatch_world turns the one into the other, once for every kernel of this folder.
#pragma once

#include "common/contract/status.hpp"
#include "multigpu/communicator.hpp"

#include <cuda_runtime.h>

#include <string>
#include <type_traits>

namespace redu::multigpu
{

// Calls launch(std::integral_constant<int, world>{}) for world in 1..max_ranks, so that the launch can
// name the kernel instantiated for that many GPUs; `what` names the caller in the error for any other world.
template <class Launch>
Status dispatch_world(int world, const char* what, Launch&& launch)
{
  static_assert(max_ranks == 8, "dispatch_world instantiates worlds 1 to 8");
  switch (world)
  {
  case 1: launch(std::integral_constant<int, 1>{}); break;
  case 2: launch(std::integral_constant<int, 2>{}); break;
  case 3: launch(std::integral_constant<int, 3>{}); break;
  case 4: launch(std::integral_constant<int, 4>{}); break;
  case 5: launch(std::integral_constant<int, 5>{}); break;
  case 6: launch(std::integral_constant<int, 6>{}); break;
  case 7: launch(std::integral_constant<int, 7>{}); break;
  case 8: launch(std::integral_constant<int, 8>{}); break;
  default: return Status::invalid(std::string(what) + ": 1 to " + std::to_string(max_ranks) + " GPUs");
  }
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

} // namespace redu::multigpu
