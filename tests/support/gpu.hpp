// GPU tests skip with a one-line reason when no CUDA device is present; REQUIRE_GPU=1 turns that skip
// into a failure, so a GPU machine can never report a skipped suite as a pass.
#pragma once

#include "common/host/device_info.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace redu::test
{

inline bool gpu_required()
{
  const char* value = std::getenv("REQUIRE_GPU");
  return value != nullptr && std::string(value) != "" && std::string(value) != "0";
}

// Cached: asking the driver once per process is enough.
inline const std::string& cached_no_gpu_reason()
{
  static const std::string reason = no_gpu_reason();
  return reason;
}

} // namespace redu::test

#define REDU_REQUIRE_GPU()                                                                      \
  do                                                                                            \
  {                                                                                             \
    const std::string& redu_reason_ = ::redu::test::cached_no_gpu_reason();                     \
    if (!redu_reason_.empty())                                                                  \
    {                                                                                           \
      if (::redu::test::gpu_required())                                                         \
      {                                                                                         \
        FAIL() << "REQUIRE_GPU is set but " << redu_reason_;                                    \
      }                                                                                         \
      GTEST_SKIP() << "GPU test skipped: " << redu_reason_ << " (set REQUIRE_GPU=1 to fail instead)"; \
    }                                                                                           \
  } while (0)
