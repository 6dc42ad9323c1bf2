// Where a library baseline departs from the contract (Info::subnormal_sum_departure,
// nonfinite_sum_departure, top_of_range_sum_departure, infinite_row_arg_departure): the shared tests
// skip exactly those checks for it, so here each declared departure is shown to still happen. When a
// library release fixes one, its test here fails, and the declaration (and the skip it buys) must go.
#include "support/device_problem.hpp"
#include "support/gpu.hpp"

#include "common/contract/reduction.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <vector>

namespace redu::test
{
namespace
{

template <class T>
Status sum_of(const Reduction& impl, const std::vector<T>& values, T& result)
{
  const auto n = static_cast<std::int64_t>(values.size());
  DeviceProblem d;
  REDU_TRY(make_device_problem(Kind::full, Op::sum, Shape{"", n, 1, {}}, values, &impl, d));
  REDU_TRY(run_and_wait(impl, d.problem, d.workspace, nullptr));
  std::vector<T> out;
  REDU_TRY(download(d.output, out));
  result = out.at(0);
  return Status::success();
}

// Calls check(impl, dtype) for every f32/f64 `op` of `kind` (a full-array sum unless told otherwise) that
// declares `departure`; true if any did.
template <class Check>
bool for_each_declared(ContractDeparture Info::*departure, Check check, Op op = Op::sum, Kind kind = Kind::full)
{
  bool any = false;
  for (const Reduction* impl : registry())
  {
    if (unavailable_here(*impl))
    {
      continue;
    }
    const Info& info = impl->info();
    for (DType dtype : {DType::f32, DType::f64})
    {
      if ((info.*departure).applies_to(dtype) && info.supports(dtype) && info.supports(op) && info.supports(kind))
      {
        SCOPED_TRACE(info.name + " " + to_string(dtype) + " " + to_string(op) + ": " + (info.*departure).why);
        check(*impl, dtype);
        any = true;
      }
    }
  }
  return any;
}

TEST(LibraryDepartures, DeclaredSubnormalSumDeparturesStillHappen)
{
  REDU_REQUIRE_GPU();
  // 1000 copies of the smallest subnormal: the exact sum, 1000 x that, is itself representable.
  const auto check = [](const Reduction& impl, DType dtype) {
    const auto show = [&](auto smallest) {
      using T = decltype(smallest);
      T got{};
      ASSERT_OK(sum_of(impl, std::vector<T>(1000, smallest), got));
      EXPECT_NE(got, T(1000) * smallest) << "the sum of 1000 smallest subnormals is now exact: the departure is "
                                            "gone, remove it from the implementation's Info";
    };
    dtype == DType::f32 ? show(std::numeric_limits<float>::denorm_min())
                        : show(std::numeric_limits<double>::denorm_min());
  };
  if (!for_each_declared(&Info::subnormal_sum_departure, check))
  {
    std::cout << "[   NOTE   ] no implementation in this build declares a subnormal-sum departure\n";
  }
}

TEST(LibraryDepartures, DeclaredNonfiniteSumDeparturesStillHappen)
{
  REDU_REQUIRE_GPU();
  // 1000 ones and one +inf: the contract's sum is +inf.
  const auto check = [](const Reduction& impl, DType dtype) {
    const auto show = [&](auto one) {
      using T                = decltype(one);
      std::vector<T> values(1001, one);
      values[500] = std::numeric_limits<T>::infinity();
      T got{};
      ASSERT_OK(sum_of(impl, values, got));
      EXPECT_NE(got, std::numeric_limits<T>::infinity())
        << "a sum holding +inf is now +inf: the departure is gone, remove it from the implementation's Info";
    };
    dtype == DType::f32 ? show(1.0f) : show(1.0);
  };
  if (!for_each_declared(&Info::nonfinite_sum_departure, check))
  {
    std::cout << "[   NOTE   ] no implementation in this build declares a nonfinite-sum departure\n";
  }
}

// The smallest inputs that show it: one term near the top of the double range, and max + max - max.
TEST(LibraryDepartures, DeclaredTopOfRangeSumDeparturesStillHappen)
{
  REDU_REQUIRE_GPU();
  const auto check = [](const Reduction& impl, DType dtype) {
    const auto show = [&](auto type) {
      using T     = decltype(type);
      const T max = std::numeric_limits<T>::max();
      for (const std::vector<T>& values : {std::vector<T>{std::ldexp(T(1), std::numeric_limits<T>::max_exponent - 24)},
                                           std::vector<T>{max, max, -max}})
      {
        T got{};
        ASSERT_OK(sum_of(impl, values, got));
        const T exact = values.size() == 1 ? values[0] : max;
        std::cout << "[   NOTE   ] " << impl.info().name << " " << to_string(dtype) << ": " << values.size()
                  << " term(s), exact sum " << exact << ", got " << got << "\n";
        EXPECT_TRUE(std::isfinite(got) && std::fabs(got - exact) > std::fabs(exact) / 2)
            << "the sum is now right (or an overflow): the departure is gone, remove it from the implementation's Info";
      }
    };
    dtype == DType::f32 ? show(float{}) : show(double{});
  };
  if (!for_each_declared(&Info::top_of_range_sum_departure, check))
  {
    std::cout << "[   NOTE   ] no implementation in this build declares a top-of-range sum departure\n";
  }
}

// A batched row of 1000 elements, all the infinity that loses: the contract's answer is that infinity at
// index 0.
TEST(LibraryDepartures, DeclaredInfiniteRowArgDeparturesStillHappen)
{
  REDU_REQUIRE_GPU();
  bool any = false;
  for (Op op : {Op::argmin, Op::argmax})
  {
    const auto check = [op](const Reduction& impl, DType dtype) {
      const auto show = [&](auto type) {
        using T       = decltype(type);
        const T loser = op == Op::argmax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
        const std::vector<T> values(1000, loser);
        DeviceProblem d;
        ASSERT_OK(make_device_problem(Kind::batched, op, Shape{"", 1000, 1, {}}, values, &impl, d));
        ASSERT_OK(run_and_wait(impl, d.problem, d.workspace, nullptr));
        std::vector<T> value;
        std::vector<std::int64_t> index;
        ASSERT_OK(download(d.output, value));
        ASSERT_OK(download(d.indices, index));
        EXPECT_FALSE(value.at(0) == loser && index.at(0) == 0)
            << "a row of " << loser << " now gives it at index 0: the departure is gone, remove it from the "
               "implementation's Info";
      };
      dtype == DType::f32 ? show(float{}) : show(double{});
    };
    any = for_each_declared(&Info::infinite_row_arg_departure, check, op, Kind::batched) || any;
  }
  if (!any)
  {
    std::cout << "[   NOTE   ] no implementation in this build declares an infinite-row arg departure\n";
  }
}

} // namespace
} // namespace redu::test
