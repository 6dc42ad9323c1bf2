// Test entry point: records the code_id (from REDU_CODE_ID) in the report, says up front whether the
// GPU tests will run, and at the end sums up the skipped tests in one line. With --skipped_exit_code=N
// (how ctest runs it, tests/CMakeLists.txt) a run in which nothing failed but something was skipped
// exits with N, so ctest reports it as skipped, never as passed.
#include "support/gpu.hpp"
#include "support/skip_exit.hpp"

#include <cuda/version>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv)
{
  testing::InitGoogleTest(&argc, argv);
  const char* code_id = std::getenv("REDU_CODE_ID");
  testing::Test::RecordProperty("code_id", code_id != nullptr ? code_id : "unknown");
  // How this binary was built: the CCCL its baselines were compiled against decides which of them exist
  // (common/contract/reduction.hpp), and the architectures decide what the driver runs or JIT-compiles.
  testing::Test::RecordProperty("cccl", std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION)
                                            + "." + std::to_string(CCCL_PATCH_VERSION));
  testing::Test::RecordProperty("cuda_architectures", redu::build_cuda_architectures());
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
    // The code the GPU runs of this build, and what cannot run here (skipped, each test saying why).
    redu::Target target;
    if (redu::query_target(0, nullptr, target).ok())
    {
      testing::Test::RecordProperty("device_code", target.code_arch == 0 ? "none: " + target.no_code
                                                                         : redu::describe_code(target));
      if (target.code_arch == 0)
      {
        // Every implementation would skip as unavailable: a build for another GPU is not a passing run.
        std::fprintf(stderr, "[reduce_tests] %s\n", redu::unavailable_reason({}, target).c_str());
        if (redu::test::gpu_required())
        {
          return 1;
        }
      }
    }
    std::string unavailable;
    for (const redu::Reduction* impl : redu::registry())
    {
      if (!redu::test::runs_here(*impl))
      {
        unavailable += (unavailable.empty() ? "" : ",") + impl->info().name;
        std::fprintf(stderr, "[reduce_tests] %s is not available here: %s\n", impl->info().name.c_str(),
                     redu::test::availability_here(*impl).reason.c_str());
      }
    }
    testing::Test::RecordProperty("unavailable", unavailable);
  }
  const int skipped_code = redu::test::skipped_exit_code(argc, argv);
  const int failed       = RUN_ALL_TESTS();
  return redu::test::exit_status(failed, skipped_code, "reduce_tests", reason, redu::test::unavailable_skips());
}
