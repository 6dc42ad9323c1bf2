// Where a library baseline's float sums depart from the contract (Info::subnormal_sum_departure,
// Info::nonfinite_sum_departure): the shared tests skip exactly those checks for it, so here each
// declared departure is shown to still happen. When a library release fixes one, its test here fails,
// and the declaration (and the skip it buys) must go.
#include "support/device_problem.hpp"
#include "support/gpu.hpp"

#include "common/contract/reduction.hpp"

#include <gtest/gtest.h>

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

// Calls check(impl, dtype) for every full-array float sum that declares `departure`; true if any did.
template <class Check>
bool for_each_declared(ContractDeparture Info::*departure, Check check)
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
      if ((info.*departure).applies_to(dtype) && info.supports(dtype) && info.supports(Op::sum)
          && info.supports(Kind::full))
      {
        SCOPED_TRACE(info.name + " " + to_string(dtype) + ": " + (info.*departure).why);
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

} // namespace
} // namespace redu::test
