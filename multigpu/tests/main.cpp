// multigpu_tests' entry point: with --skipped_exit_code=N (how ctest runs the GPU cases) a run in which
// nothing failed but something was skipped (too few GPUs) exits with N, which ctest reports as skipped.
#include "tests/support/skip_exit.hpp"

#include <gtest/gtest.h>

int main(int argc, char** argv)
{
  testing::InitGoogleTest(&argc, argv);
  const int skipped_code = redu::test::skipped_exit_code(argc, argv);
  const int failed       = RUN_ALL_TESTS();
  return redu::test::exit_status(failed, skipped_code, "multigpu_tests", "too few GPUs (see the reasons above)");
}
