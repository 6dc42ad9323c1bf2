// precision.exact_sum claims gpu_to_gpu determinism: the same bits whatever the grid, the block size,
// the alignment of the input or the GPU. Here: several launch shapes (one block for everything, a few
// long blocks, many short ones, 128 and 256 threads), each equal bit for bit to the registered call and
// to the host's exact sum (tests/support/exact_host_sum.hpp), on data over the whole exponent range with
// both signs, where a tree's result moves with its shape. The bits recorded by the accuracy study on
// each GPU compare GPU models (studies/accuracy_study.cpp).
#include "handwritten/precision/exact_host_sum.hpp"
#include "support/gpu.hpp"
#include "support/run_helpers.hpp"
#include "support/shapes.hpp"

#include "common/contract/reduction.hpp"
#include "handwritten/precision/exact_sum.hpp"
#include "handwritten/precision/precision_shape.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace redu::test
{
namespace
{

using precision::exact_host_sum;

template <class T> std::vector<T> wide_range_values(std::int64_t n, std::mt19937_64& rng)
{
  std::uniform_int_distribution<int> exponent(std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits,
                                              std::numeric_limits<T>::max_exponent - 30);
  std::uniform_real_distribution<T> significand(1, 2);
  std::vector<T> values(static_cast<std::size_t>(n));
  for (T& v : values)
  {
    v = std::ldexp(significand(rng), exponent(rng)) * ((rng() & 1) ? 1 : -1);
  }
  return values;
}

template <class T> void check_every_shape_gives_the_same_bits(std::int64_t n, int misalign)
{
  std::mt19937_64 rng(static_cast<std::uint64_t>(n) * 31 + misalign);
  std::vector<T> values = wide_range_values<T>(n, rng);
  const T expected      = exact_host_sum(values);
  std::vector<T> padded(static_cast<std::size_t>(misalign), T(0));
  padded.insert(padded.end(), values.begin(), values.end());

  DeviceBuffer input, output, workspace;
  ASSERT_OK(upload(padded, input));
  ASSERT_OK(output.allocate(sizeof(T)));
  const std::size_t workspace_bytes = precision::exact_sum_workspace_bytes(sizeof(T) == 8);
  ASSERT_OK(workspace.allocate(workspace_bytes));
  ASSERT_EQ(cudaMemset(workspace.data(), 0, workspace_bytes), cudaSuccess);
  const T* in = input.as<T>() + misalign;

  std::vector<T> result;
  // The registered call, with the shape it picks on this GPU.
  const Reduction* impl = find("precision.exact_sum");
  ASSERT_NE(impl, nullptr);
  Problem p;
  p.dtype  = sizeof(T) == 4 ? DType::f32 : DType::f64;
  p.n      = n;
  p.input  = in;
  p.output = output.data();
  DeviceBuffer registered_workspace;
  Workspace ws;
  ASSERT_OK(allocate_workspace(*impl, p, registered_workspace, ws));
  ASSERT_OK(run_and_wait(*impl, p, ws, nullptr));
  ASSERT_OK(download(output, result));
  EXPECT_TRUE(same_bits(result, std::vector<T>{expected})) << "registered call: " << result[0] << ", exact " << expected;

  for (int threads : {128, precision::block_threads})
  {
    const std::int64_t tile  = static_cast<std::int64_t>(threads) * precision::unroll;
    const std::int64_t tiles = (n / (16 / static_cast<std::int64_t>(sizeof(T))) + 1 + tile - 1) / tile;
    for (std::int64_t per_block : {tiles, (tiles + 6) / 7, std::int64_t{1}})
    {
      const int blocks = static_cast<int>((tiles + per_block - 1) / per_block);
      SCOPED_TRACE(std::to_string(blocks) + " blocks of " + std::to_string(threads) + " threads, "
                   + std::to_string(per_block) + " tiles each");
      ASSERT_OK(poison(output));
      ASSERT_OK(precision::exact_sum_with_shape(in, n, output.as<T>(), workspace.data(), blocks, threads, per_block,
                                                nullptr));
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      ASSERT_OK(download(output, result));
      EXPECT_TRUE(same_bits(result, std::vector<T>{expected})) << "got " << result[0] << ", exact " << expected;
    }
  }
  std::vector<unsigned char> left(workspace_bytes);
  ASSERT_EQ(cudaMemcpy(left.data(), workspace.data(), workspace_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(std::count(left.begin(), left.end(), 0), static_cast<std::ptrdiff_t>(workspace_bytes))
      << "the workspace must be left zero";
}

TEST(ReproducibleSum, FloatBitsDoNotDependOnTheLaunchShape)
{
  REDU_REQUIRE_GPU();
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{4099}, std::int64_t{1} << 20, (std::int64_t{1} << 22) + 13})
  {
    for (int misalign : {0, 1, 3})
    {
      SCOPED_TRACE("n " + std::to_string(n) + ", misaligned by " + std::to_string(misalign));
      check_every_shape_gives_the_same_bits<float>(std::min(n, max_test_n()), misalign); // sanitizer runs cap n
    }
  }
}

TEST(ReproducibleSum, DoubleBitsDoNotDependOnTheLaunchShape)
{
  REDU_REQUIRE_GPU();
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{4099}, (std::int64_t{1} << 21) + 5})
  {
    for (int misalign : {0, 1})
    {
      SCOPED_TRACE("n " + std::to_string(n) + ", misaligned by " + std::to_string(misalign));
      check_every_shape_gives_the_same_bits<double>(std::min(n, max_test_n()), misalign); // sanitizer runs cap n
    }
  }
}

// A shape that leaves tiles without a block is refused before anything runs.
TEST(ReproducibleSum, AShapeThatMissesTilesIsRefused)
{
  const Status s = precision::exact_sum_with_shape(static_cast<const float*>(nullptr), std::int64_t{1} << 20, nullptr,
                                                   nullptr, 1, precision::block_threads, 1, nullptr);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("do not cover"), std::string::npos) << s.message();
}

} // namespace
} // namespace redu::test
