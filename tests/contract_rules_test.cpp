// The contract's rules at the edges the random harness does not reach, each tested for every
// implementation it applies to (common/contract/problem.hpp and reduction.hpp state them):
//  - a zero result's sign is part of the bits that run_to_run and gpu_to_gpu promise;
//  - float sums whose terms lie near the top of the type's range stay within the stated bound;
//  - partial sums that overflow although the exact sum is finite give the rounded exact sum or a
//    non-finite value, never a finite wrong number;
//  - an implementation that declares correctly_rounded gives the exact sum rounded once, bit for bit;
//  - a workspace less aligned than workspace_alignment is refused, and nothing is written.
// A library baseline's declared departure (Info::top_of_range_sum_departure) skips exactly its check
// here, saying so; tests/library_departures_test.cpp shows the departure still happens.
#include "support/cases.hpp"
#include "support/device_problem.hpp"
#include "support/gpu.hpp"
#include "support/reference.hpp"
#include "support/run_helpers.hpp"
#include "support/shapes.hpp"

#include "common/contract/reduction.hpp"
#include "handwritten/precision/exact_host_sum.hpp"

#include <cuda/version>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>

namespace redu::test
{
namespace
{

// One output over the whole input, in any kind the implementation declares: the full array, one row,
// or one segment.
Shape one_output(Kind kind, std::int64_t n)
{
  return kind == Kind::segmented ? segments_from_lengths("one segment", {n}) : Shape{"one output", n, 1, {}};
}

Kind first_kind(const Info& info)
{
  return info.supports(Kind::full) ? Kind::full : info.kinds.front();
}

// Runs `impl` on host `values` as one output of `kind`; returns the output's bytes and its value widened.
template <class T>
Status run_one(const Reduction& impl, Kind kind, Op op, const std::vector<T>& values, cudaStream_t stream,
               std::vector<unsigned char>& bits, long double& value)
{
  DeviceProblem d;
  REDU_TRY(make_device_problem(kind, op, one_output(kind, static_cast<std::int64_t>(values.size())), values, &impl, d));
  REDU_TRY(poison(d.output));
  REDU_TRY(poison(d.indices));
  REDU_TRY(run_and_wait(impl, d.problem, d.workspace, stream));
  REDU_TRY(download(d.output, bits));
  std::vector<long double> out;
  REDU_TRY(download_outputs(d, out));
  value = out.at(0);
  return Status::success();
}

// --- The sign of a zero result ------------------------------------------------------------------------

// Values whose reduction is a zero, with zeros of both signs spread through them: for min, positive
// values and zeros; for max, negative values and zeros; for sums, nothing but zeros.
template <class T>
std::vector<T> zeros_of_both_signs(std::int64_t n, Op op, std::mt19937_64& rng)
{
  std::vector<T> values = random_values<T>(n, op, rng);
  std::bernoulli_distribution zero(op == Op::sum ? 1.0 : 0.01), negative(0.5);
  for (T& v : values)
  {
    const T m = wide(magnitude(v)) == 0 ? narrow<T>(1.0f) : magnitude(v);
    v         = op == Op::min ? m : narrow<T>(-wide(m));
    if (zero(rng))
    {
      v = negative(rng) ? narrow<T>(-0.0f) : T(0);
    }
  }
  return values;
}

class ZeroSign : public testing::TestWithParam<Case>
{};

// Sixteen runs on one input, each started while other work fills the GPU, give one set of bits: the sign
// of the zero included, for every implementation that declares run_to_run or gpu_to_gpu.
TEST_P(ZeroSign, RepeatedRunsGiveTheSameZero)
{
  REDU_REQUIRE_GPU();
  const Case& c = GetParam();
  REDU_REQUIRE_AVAILABLE(*c.impl);
  std::mt19937_64 rng(41);
  visit_dtype(c.dtype, [&](auto type) {
    using T = decltype(type);
    // Many blocks, and many rows of Lei Mao's reshape (leimao.large_array_atomic's arrival order).
    const std::int64_t n = std::min((std::int64_t{1} << 21) + 5, c.impl->info().max_n);
    const Shape shape    = c.kind == Kind::full      ? Shape{"n", n, 1, {}}
                         : c.kind == Kind::batched ? Shape{"rows", 64 * (n / 64), 64, {}}
                                                   : segments_from_lengths("segments", {1, 0, n / 2, 4099, n / 4});
    const std::vector<T> values = zeros_of_both_signs<T>(shape.n, c.op, rng);
    DeviceProblem d;
    ASSERT_OK(make_device_problem(c.kind, c.op, shape, values, c.impl, d));
    DeviceBuffer busy;
    ASSERT_OK(busy.allocate(std::size_t{64} << 20));
    cudaStream_t stream = nullptr, other = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
    std::vector<unsigned char> first, again;
    for (int run = 0; run < 16; ++run)
    {
      ASSERT_OK(poison(d.output));
      ASSERT_EQ(cudaMemsetAsync(busy.data(), run, busy.bytes(), other), cudaSuccess);
      ASSERT_OK(run_and_wait(*c.impl, d.problem, d.workspace, stream));
      ASSERT_OK(download(d.output, run == 0 ? first : again));
      if (run > 0)
      {
        ASSERT_TRUE(same_bits(first, again)) << "declared " << to_string(c.impl->info().determinism_of(c.dtype, c.op))
                                             << ", but run " << run + 1 << " gave other bits (a zero's sign?)";
      }
    }
    std::vector<long double> result;
    ASSERT_OK(download_outputs(d, result));
    for (long double r : result)
    {
      ASSERT_TRUE(r == 0 || c.kind == Kind::segmented) << "expected a zero, got " << static_cast<double>(r);
    }
    ASSERT_EQ(cudaStreamSynchronize(other), cudaSuccess);
    ASSERT_EQ(cudaStreamDestroy(other), cudaSuccess);
    ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  });
}

INSTANTIATE_TEST_SUITE_P(Registry, ZeroSign, testing::ValuesIn([] {
                           std::vector<Case> cases;
                           for (const Case& c : registered_cases())
                           {
                             // A sum of nothing but zeros is input that is all tiny: where a library
                             // declares that departure (subnormal_sum_departure), its sums are not asked.
                             const bool all_tiny_departs =
                                 c.op == Op::sum && c.impl->info().subnormal_sum_departure.applies_to(c.dtype);
                             if (is_floating(c.dtype) && (c.op == Op::sum || c.op == Op::min || c.op == Op::max)
                                 && c.impl->info().is_deterministic(c.dtype, c.op) && !all_tiny_departs)
                             {
                               cases.push_back(c);
                             }
                           }
                           return cases;
                         }()),
                         case_name);

// --- Sums near the top of the range ---------------------------------------------------------------

std::vector<ImplKind> float_sum_implementations()
{
  std::vector<ImplKind> cases;
  for (const Reduction* impl : registry())
  {
    const Info& info = impl->info();
    const bool floats = std::any_of(info.dtypes.begin(), info.dtypes.end(), [](DType d) { return is_floating(d); });
    if (floats && info.supports(Op::sum))
    {
      cases.push_back({impl, first_kind(info)});
    }
  }
  return cases;
}

// Calls f(T{}) for each float element type `info` declares, but for those under its declared
// top-of-range departure, which it names instead.
template <class F>
void for_each_float_type_off_departure(const Info& info, F f)
{
  for (DType dtype : info.dtypes)
  {
    if (!is_floating(dtype))
    {
      continue;
    }
    if (info.top_of_range_sum_departure.applies_to(dtype))
    {
      std::cout << "[   NOTE   ] top-of-range sums not checked for " << info.name << " " << to_string(dtype)
                << " (tests/library_departures_test.cpp shows it): " << info.top_of_range_sum_departure.why << "\n";
      continue;
    }
    visit_dtype(dtype, f);
  }
}

class TopOfRange : public testing::TestWithParam<ImplKind>
{};

// Terms of magnitude between top / 2^(k+1) and top / 2^k, k = ceil(log2 n) + 1, mixed signs, so that
// sum|x| <= top / 2: no partial sum of any order can overflow, and the stated bound holds as anywhere.
TEST_P(TopOfRange, SumsOfTheLargestTermsStayWithinTheStatedBound)
{
  REDU_REQUIRE_GPU();
  const auto [impl, kind] = GetParam();
  REDU_REQUIRE_AVAILABLE(*impl);
  const Info& info        = impl->info();
  std::mt19937_64 rng(43);
  for_each_float_type_off_departure(info, [&](auto type) {
    using T           = decltype(type);
    const DType dtype = dtype_of<T>();
    for (const std::int64_t n : {std::int64_t{3}, std::int64_t{1000}, std::int64_t{1} << 20})
    {
      if (n > info.max_n)
      {
        continue;
      }
      SCOPED_TRACE(info.name + " " + to_string(dtype) + " n = " + std::to_string(n));
      // The output type's top: a half sum accumulates in f32, but its terms are halves.
      const long double top = std::min<long double>(wide(Limits<T>::max()), std::numeric_limits<Wide<T>>::max());
      const long double high = top / std::ldexp(1.0L, static_cast<int>(std::ceil(std::log2(n))) + 1);
      std::uniform_real_distribution<double> fraction(0.5, 1.0);
      std::bernoulli_distribution negative(0.5);
      std::vector<T> values(static_cast<std::size_t>(n));
      for (T& v : values)
      {
        const long double x = high * fraction(rng);
        v = narrow<T>(static_cast<Wide<T>>(negative(rng) ? -x : x));
      }
      std::vector<unsigned char> bits;
      long double got = 0;
      ASSERT_OK(run_one(*impl, kind, Op::sum, values, nullptr, bits, got));
      const Reference ref = reference(values, 0, n, Op::sum);
      const Problem p{kind, dtype, Op::sum, n, 1};
      const long double tol = tolerance<T>(ref, Op::sum, sum_error_factor(*impl, p, n));
      EXPECT_TRUE(std::isfinite(got) && std::fabs(got - ref.value) <= tol)
          << "got " << static_cast<double>(got) << ", expected " << static_cast<double>(ref.value) << " (tolerance "
          << static_cast<double>(tol) << ")";
    }
  });
}

// max + max - max, in each order, and a shuffled cancellation of 1000 terms at max / 2: the exact sum
// is finite but a partial sum can overflow. The contract's bound does not reach there (sum|x| is
// beyond the type); what it promises: the exact sum rounded, or a non-finite value. A finite wrong
// number is never right. Implementations that declare correctly_rounded must return the exact sum.
TEST_P(TopOfRange, OverflowingPartialSumsGiveTheRoundedSumOrANonFiniteValue)
{
  REDU_REQUIRE_GPU();
  const auto [impl, kind] = GetParam();
  REDU_REQUIRE_AVAILABLE(*impl);
  const Info& info        = impl->info();
  std::mt19937_64 rng(47);
  for_each_float_type_off_departure(info, [&](auto type) {
    using T           = decltype(type);
    const DType dtype = dtype_of<T>();
    const T max       = Limits<T>::max();
    const T minus_max = narrow<T>(-wide(max));
    std::vector<T> cancellation;
    for (int i = 0; i < 500; ++i)
    {
      cancellation.push_back(narrow<T>(wide(max) / 2));
      cancellation.push_back(narrow<T>(-wide(max) / 2));
    }
    cancellation.push_back(max);
    std::shuffle(cancellation.begin(), cancellation.end(), rng);
    for (const std::vector<T>& values :
         {std::vector<T>{max, max, minus_max}, std::vector<T>{max, minus_max, max}, std::vector<T>{minus_max, max, max},
          cancellation})
    {
      SCOPED_TRACE(info.name + " " + to_string(dtype) + ", " + std::to_string(values.size()) + " terms");
      std::vector<unsigned char> bits;
      long double got = 0;
      ASSERT_OK(run_one(*impl, kind, Op::sum, values, nullptr, bits, got));
      const long double exact = reference(values, 0, static_cast<std::int64_t>(values.size()), Op::sum).value;
      // The exact sum is max; in a wider output (a half sum's f32) it is exact too.
      if (info.correctly_rounded)
      {
        EXPECT_EQ(got, exact) << "declared correctly_rounded";
      }
      else
      {
        EXPECT_TRUE(!std::isfinite(got) || got == exact)
            << "got the finite " << static_cast<double>(got) << ", expected " << static_cast<double>(exact)
            << " or a non-finite value";
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Registry, TopOfRange, testing::ValuesIn(float_sum_implementations()), impl_kind_name);

// --- Correctly rounded sums -----------------------------------------------------------------------

class CorrectlyRounded : public testing::TestWithParam<ImplKind>
{};

// Terms over the whole exponent range with heavy cancellation: only the exact sum rounded once matches
// bit for bit.
TEST_P(CorrectlyRounded, SumsAreTheExactSumRoundedOnce)
{
  REDU_REQUIRE_GPU();
  const auto [impl, kind] = GetParam();
  REDU_REQUIRE_AVAILABLE(*impl);
  std::mt19937_64 rng(53);
  for (DType dtype : impl->info().dtypes)
  {
    if (dtype != DType::f32 && dtype != DType::f64)
    {
      continue;
    }
    visit_dtype(dtype, [&](auto type) {
      using T = decltype(type);
      if constexpr (std::is_floating_point_v<T>)
      {
        std::uniform_int_distribution<int> exponent(std::numeric_limits<T>::min_exponent - 20,
                                                     std::numeric_limits<T>::max_exponent - 30);
        std::uniform_real_distribution<T> mantissa(1, 2);
        std::vector<T> values;
        for (int i = 0; i < 50000; ++i)
        {
          const T x = std::ldexp(mantissa(rng), exponent(rng));
          values.push_back(x);
          values.push_back(i % 3 == 0 ? -x : x / 3);
        }
        std::shuffle(values.begin(), values.end(), rng);
        precision::ExactHostSum<T> exact;
        exact.add(values);
        std::vector<unsigned char> bits;
        long double got = 0;
        ASSERT_OK(run_one(*impl, kind, Op::sum, values, nullptr, bits, got));
        EXPECT_EQ(static_cast<T>(got), exact.rounded()) << to_string(dtype);
      }
    });
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, CorrectlyRounded, testing::ValuesIn([] {
                           std::vector<ImplKind> cases;
                           for (const ImplKind& c : float_sum_implementations())
                           {
                             if (c.impl->info().correctly_rounded)
                             {
                               cases.push_back(c);
                             }
                           }
                           return cases;
                         }()),
                         impl_kind_name);

// --- Workspace alignment --------------------------------------------------------------------------

class WorkspaceAlignment : public testing::TestWithParam<ImplKind>
{};

// Each declared (type, operator) that needs a workspace: the same workspace 8 bytes past its start is
// refused by redu::run with the rule's words, and the output keeps its poison.
TEST_P(WorkspaceAlignment, ALessAlignedWorkspaceIsRefusedAndNothingIsWritten)
{
  REDU_REQUIRE_GPU();
  const auto [impl, kind] = GetParam();
  REDU_REQUIRE_AVAILABLE(*impl);
  std::mt19937_64 rng(59);
  int checked = 0;
  for (DType dtype : impl->info().dtypes)
  {
    for (Op op : impl->info().ops)
    {
      visit_dtype(dtype, [&](auto type) {
        using T                     = decltype(type);
        const std::int64_t n        = std::min<std::int64_t>(100003, impl->info().max_n);
        const std::vector<T> values = random_values<T>(n, op, rng);
        DeviceProblem d;
        ASSERT_OK(make_device_problem(kind, op, one_output(kind, n), values, impl, d));
        if (d.workspace.bytes == 0)
        {
          return;
        }
        ++checked;
        DeviceBuffer larger;
        ASSERT_OK(larger.allocate(d.workspace.bytes + 8));
        ASSERT_OK(poison(d.output));
        std::vector<unsigned char> before, after;
        ASSERT_OK(download(d.output, before));
        const Workspace shifted{static_cast<char*>(larger.data()) + 8, d.workspace.bytes};
        const Status status = run(*impl, d.problem, shifted, nullptr);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        EXPECT_FALSE(status.ok()) << to_string(dtype) << " " << to_string(op);
        EXPECT_NE(status.message().find("not aligned to " + std::to_string(workspace_alignment)), std::string::npos)
            << status.message();
        ASSERT_OK(download(d.output, after));
        EXPECT_TRUE(same_bits(before, after)) << "a refused call wrote its output";
      });
    }
  }
  if (checked == 0)
  {
    std::cout << "[   NOTE   ] " << impl->info().name << " needs no workspace for any declared problem\n";
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, WorkspaceAlignment, testing::ValuesIn([] {
                           std::vector<ImplKind> cases;
                           for (const Reduction* impl : registry())
                           {
                             cases.push_back({impl, first_kind(impl->info())});
                           }
                           return cases;
                         }()),
                         impl_kind_name);

// --- The registry and the CCCL -------------------------------------------------------------------

// What this build's CCCL lacks is listed with its reason, never registered.
TEST(RegistryAndCccl, AbsentImplementationsAreListedWithTheirReasonAndNotRegistered)
{
  for (const AbsentReduction& absent : absent_from_build())
  {
    EXPECT_EQ(find(absent.name), nullptr) << absent.name;
    EXPECT_NE(absent.why.find("needs CCCL"), std::string::npos) << absent.why;
  }
#if CCCL_VERSION >= 3005000
  EXPECT_TRUE(absent_from_build().empty()) << "a CCCL 3.5 build lacks nothing";
#else
  EXPECT_FALSE(absent_from_build().empty()) << "a build against an older CCCL lists what it lacks";
#endif
}

} // namespace
} // namespace redu::test
