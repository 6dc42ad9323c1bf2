// Test entry point: records the code_id (from REDU_CODE_ID) in the report and says up front whether
// the GPU tests will run.
#include "support/gpu.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

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
  return RUN_ALL_TESTS();
}
