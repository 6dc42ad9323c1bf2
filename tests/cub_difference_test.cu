// Where CUB's own answer differs from the contract (common/contract/problem.hpp), shown by calling CUB directly:
// cub::DeviceReduce::Min / Max and DeviceSegmentedReduce::Min / Max seed the reduction with
// numeric_limits<T>::max() / lowest(), which for floats are +-FLT_MAX, not the identities +-inf. So the
// min of an all-(+inf) input, and of an empty segment, comes out FLT_MAX, where the contract (and every
// registered implementation, the CUB baselines included) gives +inf. If a CCCL release changes this,
// this test fails and problem.hpp's note must change with it.
#include "support/gpu.hpp"
#include "support/run_helpers.hpp"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include <gtest/gtest.h>

#include <cfloat>
#include <limits>
#include <vector>

namespace redu::test
{
namespace
{

TEST(CubDifference, MinAndMaxOfInfinitiesAndEmptySegmentsGiveFltMax)
{
  REDU_REQUIRE_GPU();
  const float inf = std::numeric_limits<float>::infinity();
  DeviceBuffer plus_inf, minus_inf, offsets, out, temp;
  ASSERT_OK(upload(std::vector<float>(1000, inf), plus_inf));
  ASSERT_OK(upload(std::vector<float>(1000, -inf), minus_inf));
  ASSERT_OK(upload(std::vector<std::int64_t>{0, 1000, 1000}, offsets)); // one full segment, one empty
  ASSERT_OK(out.allocate(2 * sizeof(float)));
  ASSERT_OK(poison(out)); // the full reductions write only the first of the two outputs
  ASSERT_OK(temp.allocate(1 << 20));
  std::vector<float> got;
  std::size_t bytes = temp.bytes();

  ASSERT_EQ(cub::DeviceReduce::Min(temp.data(), bytes, plus_inf.as<const float>(), out.as<float>(), 1000), cudaSuccess);
  ASSERT_OK(download(out, got));
  EXPECT_EQ(got[0], FLT_MAX) << "cub::DeviceReduce::Min of +inf values";
  bytes = temp.bytes();
  ASSERT_EQ(cub::DeviceReduce::Max(temp.data(), bytes, minus_inf.as<const float>(), out.as<float>(), 1000), cudaSuccess);
  ASSERT_OK(download(out, got));
  EXPECT_EQ(got[0], -FLT_MAX) << "cub::DeviceReduce::Max of -inf values";

  const auto* begin = offsets.as<const std::int64_t>();
  bytes             = temp.bytes();
  ASSERT_EQ(cub::DeviceSegmentedReduce::Min(temp.data(), bytes, plus_inf.as<const float>(), out.as<float>(), 2, begin,
                                            begin + 1),
            cudaSuccess);
  ASSERT_OK(download(out, got));
  EXPECT_EQ(got[0], FLT_MAX) << "cub::DeviceSegmentedReduce::Min of a segment of +inf values";
  EXPECT_EQ(got[1], FLT_MAX) << "cub::DeviceSegmentedReduce::Min of an empty segment";
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

} // namespace
} // namespace redu::test
