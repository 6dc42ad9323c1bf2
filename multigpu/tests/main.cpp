// multigpu_tests' entry point: with --skipped_exit_code=N (how ctest runs the GPU cases) a run in which
// nothing failed but something was skipped (too few GPUs) exits with N, which ctest reports as skipped.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv)
{
  testing::InitGoogleTest(&argc, argv);
  int skipped_exit_code = 0;
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    if (arg.rfind("--skipped_exit_code=", 0) == 0)
    {
      skipped_exit_code = std::atoi(arg.c_str() + arg.find('=') + 1);
    }
  }
  const int failed              = RUN_ALL_TESTS();
  const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
  if (unit.skipped_test_count() > 0)
  {
    std::fprintf(stderr, "[multigpu_tests] %d of %d tests skipped (see the reasons above)\n", unit.skipped_test_count(),
                 unit.test_to_run_count());
    if (failed == 0 && skipped_exit_code != 0)
    {
      return skipped_exit_code;
    }
  }
  return failed;
}
