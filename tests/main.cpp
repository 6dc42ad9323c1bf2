// Test entry point: records the code_id (from REDU_CODE_ID) in the report, says up front whether the
// GPU tests will run, and at the end sums up the skipped tests in one line. With --skipped_exit_code=N
// (how ctest runs it, tests/CMakeLists.txt) a run in which nothing failed but something was skipped
// exits with N, so ctest reports it as skipped, never as passed.
#include "support/gpu.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv)
{
  testing::InitGoogleTest(&argc, argv);
  const char* code_id = std::getenv("REDU_CODE_ID");
  testing::Test::RecordProperty("code_id", code_id != nullptr ? code_id : "unknown");
  const std::string& reason = redu::test::cached_no_gpu_reason();
  if (!reason.empty())
  {
    std::fprintf(stderr, "[reduce_tests] GPU tests will %s: %s\n", redu::test::gpu_required() ? "FAIL" : "be skipped",
                 reason.c_str());
  }
  else
  {
    redu::DeviceInfo info;
    if (redu::query_device(0, info).ok())
    {
      testing::Test::RecordProperty("gpu", info.name);
    }
  }
  int skipped_exit_code = 0;
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    if (arg.rfind("--skipped_exit_code=", 0) == 0)
    {
      skipped_exit_code = std::atoi(arg.c_str() + arg.find('=') + 1);
    }
  }
  const int failed                 = RUN_ALL_TESTS();
  const testing::UnitTest& unit    = *testing::UnitTest::GetInstance();
  if (unit.skipped_test_count() > 0)
  {
    std::fprintf(stderr, "[reduce_tests] %d of %d tests skipped%s%s\n", unit.skipped_test_count(),
                 unit.test_to_run_count(), reason.empty() ? "" : ": ", reason.c_str());
    if (failed == 0 && skipped_exit_code != 0)
    {
      return skipped_exit_code;
    }
  }
  return failed;
}
