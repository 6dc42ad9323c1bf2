// GPU tests skip with a one-line reason when no CUDA device is present; REQUIRE_GPU=1 turns that skip
// into a failure, so a GPU machine can never report a skipped suite as a pass.
#pragma once

#include "common/contract/reduction.hpp"
#include "common/host/device_info.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <iostream>
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

// Whether `impl` can run on the current device with this binary (common/contract/requirements.hpp), and
// why not; available without a GPU (the GPU tests skip for that reason first).
inline Availability availability_here(const Reduction& impl)
{
  return available_here(impl);
}
inline bool runs_here(const Reduction& impl)
{
  return availability_here(impl).ok;
}

// For a test that loops over the registry: true, after a note saying why, for an implementation that
// cannot run here (the loop passes over it).
inline bool unavailable_here(const Reduction& impl)
{
  const Availability verdict = availability_here(impl);
  if (!verdict.ok)
  {
    std::cout << "[   NOTE   ] " << impl.info().name << " not checked: not available here: " << verdict.reason << "\n";
  }
  return !verdict.ok;
}

// Tests skipped because their implementation cannot run here: a result, not a missing GPU, so a run
// whose only skips are these passes (skip_exit.hpp).
inline std::atomic<int>& unavailable_skips()
{
  static std::atomic<int> count{0};
  return count;
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

// Skips a test of `impl` (a Reduction&) where it cannot run on this GPU with this binary, saying why.
#define REDU_REQUIRE_AVAILABLE(impl)                                                                \
  do                                                                                                \
  {                                                                                                 \
    const ::redu::Availability redu_verdict_ = ::redu::test::availability_here(impl);              \
    if (!redu_verdict_.ok)                                                                          \
    {                                                                                               \
      ++::redu::test::unavailable_skips();                                                          \
      GTEST_SKIP() << (impl).info().name << " is not available here: " << redu_verdict_.reason;    \
    }                                                                                               \
  } while (0)
