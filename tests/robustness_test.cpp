// Robustness beyond random data: special floating-point values, concurrent and back-to-back calls,
// and inputs of more than 2^31 elements.
#include "support/gpu.hpp"
#include "support/reference.hpp"
#include "support/run_helpers.hpp"

#include "common/random_fill.hpp"
#include "common/reduction.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace redu::test
{
namespace
{

// Runs a full-array problem of host values and returns the single result (or fails the test).
template <class T>
Status reduce_host_values(const Reduction& impl, Op op, const std::vector<T>& values, T& result)
{
  DeviceBuffer input, output, indices, workspace_buffer;
  REDU_TRY(upload(values, input));
  REDU_TRY(output.allocate(sizeof(T)));
  REDU_TRY(indices.allocate(sizeof(std::int64_t)));
  REDU_TRY(poison(output));
  const Problem p{Kind::full, dtype_of_value<T>(), op, static_cast<std::int64_t>(values.size()), 1, input.data(),
                  output.data(), nullptr, indices.as<std::int64_t>()};
  Workspace ws;
  REDU_TRY(allocate_workspace(impl, p, workspace_buffer, ws));
  REDU_TRY(run_and_wait(impl, p, ws, nullptr));
  std::vector<T> out;
  REDU_TRY(download(output, out));
  result = out.at(0);
  return Status::success();
}

// Semantics, for every implementation that reduces float or double arrays (GUIDE: match CUB):
//  - sum: a NaN anywhere gives NaN; +inf (without -inf or NaN) gives +inf; +inf and -inf give NaN.
//  - min/max: an infinity is an ordinary extreme (-inf is the min, +inf the max). A NaN in min/max
//    input gives an unspecified result, as with CUB: which operand a comparison keeps depends on the
//    order of the tree, so we do not test it.
template <class T>
void check_special_values(const Reduction& impl)
{
  std::mt19937_64 rng(7);
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  auto with   = [&](Op op, std::initializer_list<T> specials) {
    std::vector<T> values = random_values<T>(100003, op, rng);
    std::uniform_int_distribution<std::size_t> where(0, values.size() - 1);
    for (T s : specials)
    {
      values[where(rng)] = s;
    }
    return values;
  };
  const Info& info = impl.info();
  T got{};
  if (info.supports(Op::sum))
  {
    ASSERT_OK(reduce_host_values(impl, Op::sum, with(Op::sum, {nan}), got));
    EXPECT_TRUE(std::isnan(got)) << "sum with a NaN gave " << got;
    ASSERT_OK(reduce_host_values(impl, Op::sum, with(Op::sum, {inf, inf}), got));
    EXPECT_EQ(got, inf);
    ASSERT_OK(reduce_host_values(impl, Op::sum, with(Op::sum, {inf, -inf}), got));
    EXPECT_TRUE(std::isnan(got)) << "inf + -inf gave " << got;
  }
  if (info.supports(Op::min))
  {
    ASSERT_OK(reduce_host_values(impl, Op::min, with(Op::min, {-inf, inf}), got));
    EXPECT_EQ(got, -inf);
    const std::vector<T> signed_zeros = {T(0), -T(0), T(1)};
    ASSERT_OK(reduce_host_values(impl, Op::min, signed_zeros, got));
    EXPECT_EQ(got, T(0)) << "min(+0, -0, 1) must be a zero (either sign)";
  }
  if (info.supports(Op::max))
  {
    ASSERT_OK(reduce_host_values(impl, Op::max, with(Op::max, {inf, -inf}), got));
    EXPECT_EQ(got, inf);
  }
}

TEST(SpecialValues, NanAndInfinitiesFollowTheDocumentedSemantics)
{
  REDU_REQUIRE_GPU();
  for (const Reduction* impl : registry())
  {
    if (!impl->info().supports(Kind::full))
    {
      continue;
    }
    SCOPED_TRACE(impl->info().name);
    if (impl->info().supports(DType::f32))
    {
      check_special_values<float>(*impl);
    }
    if (impl->info().supports(DType::f64))
    {
      check_special_values<double>(*impl);
    }
  }
}

// Single-pass kernels keep counters in the workspace and some code keeps static state: back-to-back
// calls with one workspace, and two implementations at once on two streams, must all be right.
TEST(Concurrency, BackToBackCallsWithOneWorkspaceAndTwoStreamsAtOnce)
{
  REDU_REQUIRE_GPU();
  const Reduction* other = find("cub.device_reduce");
  ASSERT_NE(other, nullptr);
  std::mt19937_64 rng(11);
  const std::vector<std::int64_t> sizes = {(1 << 22) + 7, 333333, 5000};
  std::vector<std::vector<std::int32_t>> inputs;
  for (std::int64_t n : sizes)
  {
    inputs.push_back(random_values<std::int32_t>(n, Op::sum, rng));
  }
  for (const Reduction* impl : registry())
  {
    const Info& info = impl->info();
    if (!info.supports(Kind::full) || !info.supports(DType::i32) || !info.supports(Op::sum))
    {
      continue;
    }
    SCOPED_TRACE(info.name);
    std::vector<DeviceBuffer> in(3), out(3);
    std::vector<Problem> problems;
    for (int k = 0; k < 3; ++k)
    {
      ASSERT_OK(upload(inputs[k], in[k]));
      ASSERT_OK(out[k].allocate(sizeof(std::int32_t)));
      ASSERT_OK(poison(out[k]));
      problems.push_back(Problem{Kind::full, DType::i32, Op::sum, sizes[k], 1, in[k].data(), out[k].data()});
    }
    // One workspace, large enough for all three, zeroed once.
    std::size_t largest = 0;
    for (const Problem& p : problems)
    {
      std::size_t bytes = 0;
      ASSERT_OK(workspace_bytes(*impl, p, bytes));
      largest = std::max(largest, bytes);
    }
    DeviceBuffer ws_buffer, other_ws_buffer;
    ASSERT_OK(ws_buffer.allocate(largest + 1));
    ASSERT_EQ(cudaMemset(ws_buffer.data(), 0, ws_buffer.bytes()), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess); // the streams below are non-blocking
    const Workspace ws{ws_buffer.data(), ws_buffer.bytes()};

    cudaStream_t a = nullptr, b = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), cudaSuccess);
    for (const Problem& p : problems)
    {
      ASSERT_OK(run(*impl, p, ws, a)); // back to back, no synchronisation in between
    }
    ASSERT_EQ(cudaStreamSynchronize(a), cudaSuccess);
    for (int k = 0; k < 3; ++k)
    {
      std::vector<std::int32_t> got;
      ASSERT_OK(download(out[k], got));
      EXPECT_EQ(got.at(0), reference(inputs[k], 0, sizes[k], Op::sum).value) << "back-to-back call " << k;
      ASSERT_OK(poison(out[k]));
    }

    // Two implementations at once, each with its own workspace, on two streams.
    Workspace other_ws;
    ASSERT_OK(allocate_workspace(*other, problems[1], other_ws_buffer, other_ws));
    ASSERT_OK(run(*impl, problems[0], ws, a));
    ASSERT_OK(run(*other, problems[1], other_ws, b));
    ASSERT_EQ(cudaStreamSynchronize(a), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(b), cudaSuccess);
    for (int k = 0; k < 2; ++k)
    {
      std::vector<std::int32_t> got;
      ASSERT_OK(download(out[k], got));
      EXPECT_EQ(got.at(0), reference(inputs[k], 0, sizes[k], Op::sum).value) << "concurrent call " << k;
    }
    cudaStreamDestroy(a);
    cudaStreamDestroy(b);
  }
}

// A real buffer of more than 2^31 elements: 32-bit index arithmetic anywhere shows up here. Every
// implementation that declares max_n above it must get the exact sum; the others must refuse it.
TEST(LargeInputs, MoreThanTwoTo31ElementsOrAClearRefusal)
{
  REDU_REQUIRE_GPU();
  const std::int64_t n     = (std::int64_t{1} << 31) + 17;
  const std::uint64_t seed = 31;
  DeviceBuffer input, output, workspace_buffer;
  const Status allocated = input.allocate(static_cast<std::size_t>(n) * sizeof(std::int32_t));
  if (!allocated.ok())
  {
    cudaGetLastError();
    GTEST_SKIP() << "needs " << n * 4 / (1 << 20) << " MiB of device memory: " << allocated.message();
  }
  ASSERT_OK(output.allocate(sizeof(std::int32_t)));
  ASSERT_OK(fill_random(DType::i32, input.data(), n, seed, nullptr));
  std::int64_t expected = 0;
  for (std::int64_t i = 0; i < n; ++i)
  {
    expected += random_element<std::int32_t>(seed, i);
  }
  ASSERT_LT(std::llabs(expected), std::int64_t{1} << 31) << "the reference must fit the int32 result";

  int checked = 0;
  for (const Reduction* impl : registry())
  {
    const Info& info = impl->info();
    if (!info.supports(Kind::full) || !info.supports(DType::i32) || !info.supports(Op::sum))
    {
      continue;
    }
    SCOPED_TRACE(info.name);
    const Problem p{Kind::full, DType::i32, Op::sum, n, 1, input.data(), output.data()};
    if (info.max_n < n)
    {
      EXPECT_NE(validate(*impl, p).message().find("exceeds"), std::string::npos);
      continue;
    }
    Workspace ws;
    ASSERT_OK(allocate_workspace(*impl, p, workspace_buffer, ws));
    ASSERT_OK(poison(output));
    ASSERT_OK(run_and_wait(*impl, p, ws, nullptr));
    std::vector<std::int32_t> got;
    ASSERT_OK(download(output, got));
    EXPECT_EQ(got.at(0), expected);
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

} // namespace
} // namespace redu::test
