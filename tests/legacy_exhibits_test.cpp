// The documents' bugs, kept as exhibits (Role::exhibit: reached by name through redu::run, never in
// registry()) and shown to be bugs; the project's registered versions are the fixes, and the shared
// harness proves them right.
#include "support/gpu.hpp"
#include "support/reference.hpp"
#include "support/run_helpers.hpp"

#include "common/contract/reduction.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace redu::test
{
namespace
{

// moderngpu's published fused shuffle maps float min to max: with 1024 values the published reduce
// returns a lane maximum, not the minimum; moderngpu.reduce (our mapping) returns the minimum.
TEST(LegacyExhibit, ModernGpuPublishedMacroTurnsFloatMinIntoMax)
{
  REDU_REQUIRE_GPU();
  const Reduction* published = find("moderngpu.published_float_min");
  const Reduction* ours      = find("moderngpu.reduce");
  ASSERT_NE(published, nullptr);
  ASSERT_NE(ours, nullptr);
  std::mt19937_64 rng(3);
  const std::vector<float> values = random_values<float>(published->info().max_n, Op::min, rng);
  const float true_min            = *std::min_element(values.begin(), values.end());
  DeviceBuffer input, output, ws_buffer;
  ASSERT_OK(upload(values, input));
  ASSERT_OK(output.allocate(sizeof(float)));
  const Problem p{Kind::full, DType::f32, Op::min, static_cast<std::int64_t>(values.size()), 1, input.data(),
                  output.data()};
  ASSERT_OK(run_and_wait(*published, p, Workspace{}, nullptr));
  std::vector<float> wrong;
  ASSERT_OK(download(output, wrong));
  EXPECT_GT(wrong.at(0), true_min) << "the published macro's float min should be wrong (a max of lane minima)";

  Workspace ws;
  ASSERT_OK(allocate_workspace(*ours, p, ws_buffer, ws));
  ASSERT_OK(run_and_wait(*ours, p, ws, nullptr));
  std::vector<float> fixed;
  ASSERT_OK(download(output, fixed));
  EXPECT_EQ(fixed.at(0), true_min);
}

// Harris's `volatile` last-warp unroll without __syncwarp: a race on Volta and later. It often still
// gives the right sum, which is what makes it dangerous; scripts/sanitize.sh runs this test under
// racecheck and requires hazards to be reported. Here we only check that it runs and how it fares.
TEST(LegacyExhibit, HarrisVolatileReduce4RunsButIsARace)
{
  REDU_REQUIRE_GPU();
  const Reduction* exhibit = find("harris.reduce4_volatile");
  ASSERT_NE(exhibit, nullptr);
  std::mt19937_64 rng(5);
  const std::int64_t n            = 1 << 16;
  const std::vector<float> values = random_values<float>(n, Op::sum, rng);
  DeviceBuffer input, output, ws_buffer;
  ASSERT_OK(upload(values, input));
  ASSERT_OK(output.allocate(sizeof(float)));
  const Problem p{Kind::full, DType::f32, Op::sum, n, 1, input.data(), output.data()};
  Workspace ws;
  ASSERT_OK(allocate_workspace(*exhibit, p, ws_buffer, ws));
  ASSERT_OK(run_and_wait(*exhibit, p, ws, nullptr));
  std::vector<float> got;
  ASSERT_OK(download(output, got));
  const Reference ref = reference(values, 0, n, Op::sum);
  RecordProperty("volatile_reduce4_abs_error", std::to_string(static_cast<double>(std::fabs(got.at(0) - ref.value))));
  Problem no_input = p;
  no_input.input   = nullptr;
  EXPECT_FALSE(run(*exhibit, no_input, ws, nullptr).ok()) << "the contract's checks apply to exhibits too";
}

} // namespace
} // namespace redu::test
