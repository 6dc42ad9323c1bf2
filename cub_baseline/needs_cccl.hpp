// What a baseline that this build's CCCL lacks is listed with (REDU_REGISTER_ABSENT, reduction.hpp):
// the CCCL release it needs, what it needs from it, and the CCCL this build found.
#pragma once

#include <cuda/version>

#include <string>

namespace redu
{

inline std::string needs_cccl(const char* release, const char* what)
{
  return std::string("needs CCCL ") + release + " (" + what + "); this build has CCCL "
       + std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) + "."
       + std::to_string(CCCL_PATCH_VERSION);
}

} // namespace redu
