// How a test binary ends when some of its tests were skipped (no GPU, too few GPUs): one line that counts
// them, and, when ctest asked for it with --skipped_exit_code=N, exit status N for a run in which nothing
// failed, so ctest reports the run as skipped, never as passed. Shared by reduce_tests and multigpu_tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace redu::test
{

// The N of --skipped_exit_code=N on the command line (GoogleTest leaves unknown flags in argv), or 0.
inline int skipped_exit_code(int argc, char** argv)
{
  int code = 0;
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    if (arg.rfind("--skipped_exit_code=", 0) == 0)
    {
      code = std::atoi(arg.c_str() + arg.find('=') + 1);
    }
  }
  return code;
}

// The exit status of a run whose RUN_ALL_TESTS() returned `failed`; `why` names the skips' reason.
// `unavailable` of the skipped tests skipped an implementation that cannot run on this GPU with this
// binary (REDU_REQUIRE_AVAILABLE): each said why, and a run whose only skips are these passes.
inline int exit_status(int failed, int skipped_code, const char* program, const std::string& why, int unavailable = 0)
{
  const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
  if (unit.skipped_test_count() == 0)
  {
    return failed;
  }
  if (unavailable > 0)
  {
    std::fprintf(stderr, "[%s] %d of %d tests skipped: their implementation is not available on this GPU with this "
                         "build (each says why)\n",
                 program, unavailable, unit.test_to_run_count());
    if (unit.skipped_test_count() == unavailable)
    {
      return failed;
    }
  }
  std::fprintf(stderr, "[%s] %d of %d tests skipped%s%s\n", program, unit.skipped_test_count(),
               unit.test_to_run_count(), why.empty() ? "" : ": ", why.c_str());
  return failed == 0 && skipped_code != 0 ? skipped_code : failed;
}

} // namespace redu::test
