// Robustness beyond random data: special floating-point values, concurrent and back-to-back calls,
// and inputs of more than 2^31 elements.
//
// Special values, for every implementation that reduces float or double, in every kind it declares,
// follow the rules stated in common/contract/problem.hpp (NaN and infinities in sums, +-inf identities so that
// all-infinite inputs give the infinity, signed zeros, first occurrence for argmin/argmax).
#include "support/cases.hpp"
#include "support/device_problem.hpp"
#include "support/gpu.hpp"
#include "support/reference.hpp"
#include "support/run_helpers.hpp"
#include "support/shapes.hpp"

#include "common/host/random_fill.hpp"
#include "common/contract/reduction.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <iterator>
#include <limits>
#include <numeric>
#include <sstream>

namespace redu::test
{
namespace
{

// The rows of a problem: row i is [offsets[i], offsets[i + 1]). A full problem has one row, a batched
// one equal rows; only a segmented one passes its offsets to the device.
struct Layout
{
  Kind kind = Kind::full;
  std::vector<std::int64_t> offsets;

  std::int64_t rows() const { return static_cast<std::int64_t>(offsets.size()) - 1; }
  std::int64_t n() const { return offsets.back(); }
};

Layout equal_rows(Kind kind, std::int64_t rows, std::int64_t length)
{
  Layout layout{kind, {0}};
  for (std::int64_t r = 0; r < rows; ++r)
  {
    layout.offsets.push_back(layout.offsets.back() + length);
  }
  return layout;
}

// Runs `impl` on host `values` laid out as `layout`; returns one value (in the output type, widened) and
// (argmin/argmax) one index per row, or the first error.
template <class T>
Status reduce_rows(const Reduction& impl, Op op, const Layout& layout, const std::vector<T>& values,
                   std::vector<long double>& results, std::vector<std::int64_t>& indices)
{
  const Shape shape{"", layout.n(), layout.rows(), layout.offsets};
  DeviceProblem d;
  REDU_TRY(make_device_problem(layout.kind, op, shape, values, &impl, d));
  REDU_TRY(poison(d.output));
  REDU_TRY(poison(d.indices));
  REDU_TRY(run_and_wait(impl, d.problem, d.workspace, nullptr));
  REDU_TRY(download_outputs(d, results));
  return download(d.indices, indices);
}

// Runs a full-array problem of host values and returns the single result.
template <class T>
Status reduce_host_values(const Reduction& impl, Op op, const std::vector<T>& values, long double& result)
{
  std::vector<long double> results;
  std::vector<std::int64_t> indices;
  const Layout one_row = equal_rows(Kind::full, 1, static_cast<std::int64_t>(values.size()));
  REDU_TRY(reduce_rows(impl, op, one_row, values, results, indices));
  result = results.at(0);
  return Status::success();
}

// Full arrays: the semantics at the top of this file, a few specials among 100003 random values.
// Results are compared widened (a half sum's is an f32).
template <class T>
void check_special_values(const Reduction& impl)
{
  std::mt19937_64 rng(7);
  const T inf                 = Limits<T>::infinity();
  const T nan                 = Limits<T>::quiet_NaN();
  constexpr long double infinity = std::numeric_limits<long double>::infinity();
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
  long double got = 0;
  if (info.supports(Op::sum) && info.nonfinite_sum_departure.applies_to(dtype_of<T>()))
  {
    std::cout << "[   NOTE   ] sums with infinities not checked for " << info.name << " "
              << to_string(dtype_of<T>()) << " (tests/library_departures_test.cpp shows it): "
              << info.nonfinite_sum_departure.why << "\n";
  }
  else if (info.supports(Op::sum))
  {
    ASSERT_OK(reduce_host_values(impl, Op::sum, with(Op::sum, {nan}), got));
    EXPECT_TRUE(std::isnan(got)) << "sum with a NaN gave " << got;
    ASSERT_OK(reduce_host_values(impl, Op::sum, with(Op::sum, {inf, inf}), got));
    EXPECT_EQ(got, infinity);
    ASSERT_OK(reduce_host_values(impl, Op::sum, with(Op::sum, {inf, -inf}), got));
    EXPECT_TRUE(std::isnan(got)) << "inf + -inf gave " << got;
  }
  if (info.supports(Op::min))
  {
    ASSERT_OK(reduce_host_values(impl, Op::min, with(Op::min, {-inf, inf}), got));
    EXPECT_EQ(got, -infinity);
    ASSERT_OK(reduce_host_values(impl, Op::min, std::vector<T>(100003, inf), got));
    EXPECT_EQ(got, infinity) << "the min of +inf values is +inf (not the largest finite value)";
    const std::vector<T> signed_zeros = {T(0), -T(0), T(1)};
    ASSERT_OK(reduce_host_values(impl, Op::min, signed_zeros, got));
    EXPECT_EQ(got, 0) << "min(+0, -0, 1) must be a zero (either sign)";
  }
  if (info.supports(Op::max))
  {
    ASSERT_OK(reduce_host_values(impl, Op::max, with(Op::max, {inf, -inf}), got));
    EXPECT_EQ(got, infinity);
    ASSERT_OK(reduce_host_values(impl, Op::max, std::vector<T>(100003, -inf), got));
    EXPECT_EQ(got, -infinity) << "the max of -inf values is -inf (not the lowest finite value)";
  }
}

// One test per implementation (filterable by name), over the cases each test applies to: those lists
// are built from what each implementation declares, so no instance skips.
bool reduces_floats(const Info& info)
{
  return std::any_of(info.dtypes.begin(), info.dtypes.end(), is_floating);
}

std::vector<ImplKind> float_cases(bool (*applies)(const Info&, Kind))
{
  std::vector<ImplKind> cases;
  for (const ImplKind& c : implementations_by_kind())
  {
    if (reduces_floats(c.impl->info()) && applies(c.impl->info(), c.kind))
    {
      cases.push_back(c);
    }
  }
  return cases;
}

class SpecialValuesInFullArrays : public testing::TestWithParam<ImplKind>
{};

TEST_P(SpecialValuesInFullArrays, FollowTheContract)
{
  REDU_REQUIRE_GPU();
  REDU_REQUIRE_AVAILABLE(*GetParam().impl);
  const Reduction& impl = *GetParam().impl;
  if (impl.info().supports(DType::f32))
  {
    check_special_values<float>(impl);
  }
  if (impl.info().supports(DType::f64))
  {
    check_special_values<double>(impl);
  }
  if (impl.info().supports(DType::bf16))
  {
    check_special_values<__nv_bfloat16>(impl);
  }
  if (impl.info().supports(DType::f16))
  {
    check_special_values<__half>(impl);
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, SpecialValuesInFullArrays,
                         testing::ValuesIn(float_cases([](const Info&, Kind kind) { return kind == Kind::full; })),
                         impl_kind_name);

// Batched and segmented problems: odd rows each get one plan of special values (cycling through the
// operator's plans), even rows stay ordinary and must still match the reference.
template <class T>
struct SpecialPlan
{
  std::vector<T> specials; // written at distinct random positions of the row
  bool one_signed = false; // min: the row's other values made positive, max: negative, so a zero is the extreme
  bool whole_row  = false; // every element of the row is specials[0]
};

template <class T>
std::vector<SpecialPlan<T>> special_plans(Op op)
{
  const T inf = Limits<T>::infinity();
  const T nan = Limits<T>::quiet_NaN();
  const SpecialPlan<T> zeros{{T(0), -T(0)}, true};
  switch (op)
  {
    case Op::sum:
      return {{{nan}}, {{inf, inf}}, {{inf, -inf}}, {{-inf}}, {{nan, -inf}}};
    case Op::min:
      return {{{-inf}}, {{-inf, inf}}, {{inf}}, zeros, {{inf}, false, true}};
    default:
      return {{{inf}}, {{inf, -inf}}, {{-inf}}, zeros, {{-inf}, false, true}};
  }
}

// The sum of a row holding these specials: NaN if one is NaN or both infinities are there, else the infinity.
template <class T>
long double sum_with_specials(const std::vector<T>& specials)
{
  constexpr long double inf = std::numeric_limits<long double>::infinity();
  const auto has   = [&](auto test) { return std::any_of(specials.begin(), specials.end(), [&](T v) { return test(wide(v)); }); };
  const bool nan   = has([](auto v) { return std::isnan(v); });
  const bool plus  = has([&](auto v) { return v == inf; });
  const bool minus = has([&](auto v) { return v == -inf; });
  return nan || (plus && minus) ? std::numeric_limits<long double>::quiet_NaN() : (plus ? inf : -inf);
}

// NaN matches only NaN, an infinity only itself, anything else within the tolerance.
bool matches(long double value, long double expected, long double tolerance)
{
  if (std::isnan(expected) || std::isnan(value))
  {
    return std::isnan(expected) && std::isnan(value);
  }
  return value == expected || std::fabs(value - expected) <= tolerance;
}

// What one row must hold: a value, a tolerance, and words for a failure message.
struct RowExpectation
{
  long double value;
  long double tolerance;
  std::string about;
};

// Checks every row's result against expect(r), a RowExpectation; reports the first five wrong rows.
template <class Expect>
void expect_rows_match(const Layout& layout, const std::vector<long double>& got, Expect expect)
{
  int failures = 0;
  for (std::int64_t r = 0; r < layout.rows(); ++r)
  {
    const RowExpectation e = expect(r);
    if (!matches(got[r], e.value, e.tolerance) && ++failures <= 5)
    {
      ADD_FAILURE() << "row " << r << " [" << layout.offsets[r] << ", " << layout.offsets[r + 1] << ")" << e.about
                    << ": got " << got[r] << ", expected " << static_cast<double>(e.value) << " (tolerance "
                    << static_cast<double>(e.tolerance) << ")";
    }
  }
  EXPECT_EQ(failures, 0) << failures << " of " << layout.rows() << " rows wrong";
}

// Many short rows, and a few long ones of odd length (ragged tails); varied segments with empty ones,
// a one-element segment and a long one at odd positions, so that they hold specials.
std::vector<Layout> special_layouts(Kind kind)
{
  if (kind == Kind::batched)
  {
    return {equal_rows(kind, 64, 1000), equal_rows(kind, 6, 100003)};
  }
  Layout layout{kind, {0}};
  for (std::int64_t length : {0, 1, 3, 131101, 1000, 33, 0, 257, 7, 4097, 64, 2, 31, 0, 1025, 100, 9})
  {
    layout.offsets.push_back(layout.offsets.back() + length);
  }
  return {layout};
}

template <class T>
void check_special_rows(const Reduction& impl, Op op, const Layout& layout, std::mt19937_64& rng)
{
  SCOPED_TRACE(std::string(to_string(layout.kind)) + " " + to_string(dtype_of<T>()) + " " + to_string(op)
               + ", " + std::to_string(layout.rows()) + " rows");
  std::vector<T> values = random_values<T>(layout.n(), op, rng);
  std::vector<std::vector<T>> planted(layout.rows());
  const std::vector<SpecialPlan<T>> plans = special_plans<T>(op);
  for (std::int64_t r = 1; r < layout.rows(); r += 2)
  {
    const SpecialPlan<T>& plan = plans[(r / 2) % plans.size()];
    const std::int64_t begin = layout.offsets[r], end = layout.offsets[r + 1];
    if (end - begin < static_cast<std::int64_t>(plan.specials.size()))
    {
      continue; // too short for this plan: an ordinary row
    }
    if (plan.whole_row)
    {
      std::fill(values.begin() + begin, values.begin() + end, plan.specials[0]);
      planted[r] = plan.specials;
      continue;
    }
    if (plan.one_signed)
    {
      for (std::int64_t i = begin; i < end; ++i)
      {
        values[i] = op == Op::min ? magnitude(values[i]) : -magnitude(values[i]);
      }
    }
    std::vector<std::int64_t> positions(end - begin), where;
    std::iota(positions.begin(), positions.end(), begin);
    std::sample(positions.begin(), positions.end(), std::back_inserter(where), plan.specials.size(), rng);
    for (std::size_t k = 0; k < where.size(); ++k)
    {
      values[where[k]] = plan.specials[k];
    }
    planted[r] = plan.specials;
  }

  std::vector<long double> got;
  std::vector<std::int64_t> indices;
  ASSERT_OK(reduce_rows(impl, op, layout, values, got, indices));
  expect_rows_match(layout, got, [&](std::int64_t r) {
    const Reference ref = reference(values, layout.offsets[r], layout.offsets[r + 1], op);
    // min/max compare, as the reference does, so it holds for their rows with infinities and zeros too.
    const bool special_sum = op == Op::sum && !planted[r].empty();
    std::ostringstream specials;
    std::transform(planted[r].begin(), planted[r].end(), std::ostream_iterator<Wide<T>>(specials, " "), wide<T>);
    const Problem p{layout.kind, dtype_of<T>(), op, layout.n(), layout.rows()};
    return RowExpectation{special_sum ? sum_with_specials(planted[r]) : ref.value,
                          special_sum ? 0 : tolerance<T>(ref, op, sum_error_factor(impl, p, ref.count)),
                          " with specials { " + specials.str() + "}"};
  });
}

class SpecialValuesInRows : public testing::TestWithParam<ImplKind>
{};

TEST_P(SpecialValuesInRows, FollowTheContract)
{
  REDU_REQUIRE_GPU();
  REDU_REQUIRE_AVAILABLE(*GetParam().impl);
  const auto [impl, kind] = GetParam();
  const Info& info        = impl->info();
  std::mt19937_64 rng(17);
  for (DType dtype : {DType::f32, DType::f64, DType::bf16, DType::f16})
  {
    for (Op op : {Op::sum, Op::min, Op::max})
    {
      if (info.supports(dtype) && info.supports(op))
      {
        for (const Layout& layout : special_layouts(kind))
        {
          visit_dtype(dtype, [&](auto type) { check_special_rows<decltype(type)>(*impl, op, layout, rng); });
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, SpecialValuesInRows,
                         testing::ValuesIn(float_cases([](const Info& info, Kind kind) {
                           return kind != Kind::full
                               && (info.supports(Op::sum) || info.supports(Op::min) || info.supports(Op::max));
                         })),
                         impl_kind_name);

// argmin/argmax over one row of 100003 values full of ties: the infinity written at two known positions
// is found at the first of them, the opposite infinity at index 0 is not; and among one-signed values
// with a zero of each sign, the first zero is reported with its own sign.
template <class T>
void check_arg_special_values(const Reduction& impl, Kind kind, Op op, std::mt19937_64& rng)
{
  SCOPED_TRACE(std::string(to_string(kind)) + " " + to_string(dtype_of<T>()) + " " + to_string(op));
  const std::int64_t n = 100003, first = n / 3, second = 2 * n / 3;
  const Layout layout = equal_rows(kind, 1, n);
  const bool smallest = op == Op::argmin;
  const T extreme     = smallest ? -Limits<T>::infinity() : Limits<T>::infinity();
  std::vector<long double> got;
  std::vector<std::int64_t> index;

  std::vector<T> values = random_values<T>(n, op, rng);
  values[0]             = -extreme;
  values[first]         = extreme;
  values[second]        = extreme;
  ASSERT_OK(reduce_rows(impl, op, layout, values, got, index));
  EXPECT_EQ(index.at(0), first);
  EXPECT_EQ(got.at(0), wide(extreme));

  // Every element the opposite infinity (the identity): it is still the extreme, found at index 0.
  if (const ContractDeparture& departure = impl.info().infinite_row_arg_departure;
      departure.applies_to(dtype_of<T>()))
  {
    std::cout << "[   NOTE   ] a row of the losing infinity not checked for " << impl.info().name << " "
              << to_string(dtype_of<T>()) << " (tests/library_departures_test.cpp shows it): " << departure.why << "\n";
  }
  else
  {
    std::vector<T> all_identity(n, -extreme);
    ASSERT_OK(reduce_rows(impl, op, layout, all_identity, got, index));
    EXPECT_EQ(index.at(0), 0) << "all values equal: the first wins";
    EXPECT_EQ(got.at(0), wide(-extreme));
  }

  for (T& v : values)
  {
    v = narrow<T>(smallest ? std::fabs(wide(v)) + 1 : -std::fabs(wide(v)) - 1);
  }
  for (const bool negative_first : {false, true})
  {
    values[first]  = negative_first ? -T(0) : T(0);
    values[second] = negative_first ? T(0) : -T(0);
    ASSERT_OK(reduce_rows(impl, op, layout, values, got, index));
    EXPECT_EQ(index.at(0), first) << "+0 and -0 are equal: the first one wins";
    EXPECT_TRUE(got.at(0) == 0 && std::signbit(got.at(0)) == negative_first)
        << "got " << got.at(0) << ", expected the first zero, " << wide(values[first]);
  }
}

class SpecialValuesInArgMinMax : public testing::TestWithParam<ImplKind>
{};

TEST_P(SpecialValuesInArgMinMax, FindInfinitiesAndTheFirstOfEqualExtremes)
{
  REDU_REQUIRE_GPU();
  REDU_REQUIRE_AVAILABLE(*GetParam().impl);
  const auto [impl, kind] = GetParam();
  std::mt19937_64 rng(23);
  for (DType dtype : {DType::f32, DType::f64, DType::bf16, DType::f16})
  {
    for (Op op : {Op::argmin, Op::argmax})
    {
      if (impl->info().supports(dtype) && impl->info().supports(op))
      {
        visit_dtype(dtype, [&](auto type) { check_arg_special_values<decltype(type)>(*impl, kind, op, rng); });
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, SpecialValuesInArgMinMax,
                         testing::ValuesIn(float_cases([](const Info& info, Kind) {
                           return info.supports(Op::argmin) || info.supports(Op::argmax);
                         })),
                         impl_kind_name);

// Single-pass kernels keep counters in the workspace and some code keeps static state: back-to-back
// calls with one workspace, and two implementations at once on two streams, must all be right. One test
// per implementation that sums int32 arrays.
class Concurrency : public testing::TestWithParam<ImplKind>
{};

TEST_P(Concurrency, BackToBackCallsWithOneWorkspaceAndTwoStreamsAtOnce)
{
  REDU_REQUIRE_GPU();
  REDU_REQUIRE_AVAILABLE(*GetParam().impl);
  const Reduction* impl  = GetParam().impl;
  const Reduction* other = find("cub.device_reduce");
  ASSERT_NE(other, nullptr);
  std::mt19937_64 rng(11);
  std::vector<std::int64_t> sizes = {(1 << 22) + 7, 333333, 5000};
  std::vector<std::vector<std::int32_t>> inputs;
  for (std::int64_t& n : sizes)
  {
    n = std::min(n, max_test_n()); // compute-sanitizer runs cap the sizes
    inputs.push_back(random_values<std::int32_t>(n, Op::sum, rng));
  }
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

INSTANTIATE_TEST_SUITE_P(Registry, Concurrency, testing::ValuesIn([] {
                           std::vector<ImplKind> cases;
                           for (const ImplKind& c : implementations_by_kind())
                           {
                             const Info& info = c.impl->info();
                             if (c.kind == Kind::full && info.supports(DType::i32) && info.supports(Op::sum))
                             {
                               cases.push_back(c);
                             }
                           }
                           return cases;
                         }()),
                         impl_kind_name);

// Sums a random device input of n elements of T (from `seed`) with every full implementation that
// declares a T sum and hands each result to check(implementation, result); an implementation whose max_n is below n
// must refuse the problem instead. Skips when the device has no room for the input.
template <class T, class Check> void sum_with_every_implementation(std::int64_t n, std::uint64_t seed, Check check)
{
  const DType dtype = dtype_of<T>();
  DeviceBuffer input, output, workspace_buffer;
  const Status allocated = input.allocate(static_cast<std::size_t>(n) * sizeof(T));
  if (!allocated.ok())
  {
    cudaGetLastError();
    GTEST_SKIP() << "needs " << n * sizeof(T) / (1 << 20) << " MiB of device memory: " << allocated.message();
  }
  ASSERT_OK(output.allocate(sizeof(T)));
  ASSERT_OK(fill_random(dtype, input.data(), n, seed, nullptr));

  int checked = 0;
  for (const Reduction* impl : registry())
  {
    if (unavailable_here(*impl))
    {
      continue;
    }
    const Info& info = impl->info();
    if (!info.supports(Kind::full) || !info.supports(dtype) || !info.supports(Op::sum))
    {
      continue;
    }
    SCOPED_TRACE(info.name);
    const Problem p{Kind::full, dtype, Op::sum, n, 1, input.data(), output.data()};
    if (info.max_n < n)
    {
      EXPECT_NE(validate(*impl, p).message().find("exceeds"), std::string::npos);
      continue;
    }
    Workspace ws;
    ASSERT_OK(allocate_workspace(*impl, p, workspace_buffer, ws));
    ASSERT_OK(poison(output));
    ASSERT_OK(run_and_wait(*impl, p, ws, nullptr));
    std::vector<T> got;
    ASSERT_OK(download(output, got));
    check(*impl, got.at(0));
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// A real buffer of more than 2^31 elements: 32-bit index arithmetic anywhere shows up here. Every
// implementation that declares max_n above it must get the exact sum; the others must refuse it.
TEST(LargeInputs, MoreThanTwoTo31ElementsOrAClearRefusal)
{
  REDU_REQUIRE_GPU();
  const std::int64_t n     = (std::int64_t{1} << 31) + 17;
  const std::uint64_t seed = 31;
  std::int64_t expected    = 0;
  for (std::int64_t i = 0; i < n; ++i)
  {
    expected += random_element<std::int32_t>(seed, i);
  }
  ASSERT_LT(std::llabs(expected), std::int64_t{1} << 31) << "the reference must fit the int32 result";
  sum_with_every_implementation<std::int32_t>(n, seed, [&](const Reduction&, std::int32_t got) {
    EXPECT_EQ(got, expected);
  });
}

// Runs a full argmin/argmax problem (output and indices poisoned first) and expects `extreme` at index
// `first`: the first occurrence. Call it under ASSERT_NO_FATAL_FAILURE.
template <class T>
void expect_arg_extreme(const Reduction& impl, const Problem& p, DeviceBuffer& workspace_buffer, DeviceBuffer& output,
                        DeviceBuffer& indices, T extreme, std::int64_t first)
{
  Workspace ws;
  ASSERT_OK(allocate_workspace(impl, p, workspace_buffer, ws));
  ASSERT_OK(poison(output));
  ASSERT_OK(poison(indices));
  ASSERT_OK(run_and_wait(impl, p, ws, nullptr));
  std::vector<T> got;
  std::vector<std::int64_t> index;
  ASSERT_OK(download(output, got));
  ASSERT_OK(download(indices, index));
  EXPECT_EQ(got.at(0), extreme);
  EXPECT_EQ(index.at(0), first);
}

// Argmax past 2^31 elements: the maximum written twice beyond index 2^31 (random int32 data lie in
// [-100, 100]) must be found at the first of the two, with its 64-bit index; every full implementation
// that declares an int32 argmax either finds it or refuses the size (max_n). A 32-bit index anywhere, or
// a packed key that loses index bits, shows up here.
TEST(LargeInputs, ArgMaxPastTwoTo31ElementsFindsTheFirstOfTwoMaxima)
{
  REDU_REQUIRE_GPU();
  const std::int64_t n = (std::int64_t{1} << 31) + 17, first = n - 5, second = n - 3;
  const std::int32_t extreme = 1000;
  DeviceBuffer input, output, indices, workspace_buffer;
  const Status allocated = input.allocate(static_cast<std::size_t>(n) * sizeof(std::int32_t));
  if (!allocated.ok())
  {
    cudaGetLastError();
    GTEST_SKIP() << "needs " << n * sizeof(std::int32_t) / (1 << 20) << " MiB of device memory: " << allocated.message();
  }
  ASSERT_OK(output.allocate(sizeof(std::int32_t)));
  ASSERT_OK(indices.allocate(sizeof(std::int64_t)));
  ASSERT_OK(fill_random(DType::i32, input.data(), n, 41, nullptr));
  auto* in = static_cast<std::int32_t*>(input.data());
  ASSERT_EQ(cudaMemcpy(in + first, &extreme, sizeof(extreme), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(in + second, &extreme, sizeof(extreme), cudaMemcpyHostToDevice), cudaSuccess);

  int checked = 0;
  for (const Reduction* impl : registry())
  {
    if (unavailable_here(*impl))
    {
      continue;
    }
    const Info& info = impl->info();
    if (!info.supports(Kind::full) || !info.supports(DType::i32) || !info.supports(Op::argmax))
    {
      continue;
    }
    SCOPED_TRACE(info.name);
    const Problem p{Kind::full, DType::i32, Op::argmax, n, 1, input.data(), output.data(), nullptr,
                    static_cast<std::int64_t*>(indices.data())};
    if (info.max_n < n)
    {
      EXPECT_NE(validate(*impl, p).message().find("exceeds"), std::string::npos);
      continue;
    }
    ASSERT_NO_FATAL_FAILURE(expect_arg_extreme(*impl, p, workspace_buffer, output, indices, extreme, first));
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// Argmin and argmax of floats over twice the L2 and more: from there argext.key64 takes 512-thread blocks
// (argext_shape.cuh), a launch shape the harness's sizes never reach. The extreme is written three times,
// at two neighbours in the first third and once near the end; every full implementation of f32
// argmin/argmax must give the first of them and its value. Random floats lie far inside +-1e30.
TEST(LargeInputs, FloatArgExtremesPastTwiceTheL2FindTheFirstOccurrence)
{
  REDU_REQUIRE_GPU();
  int device = 0, l2 = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), cudaSuccess);
  const std::int64_t past_twice_l2 = static_cast<std::int64_t>(l2) * 5 / 2 / static_cast<std::int64_t>(sizeof(float)) + 13;
  const std::int64_t n             = std::min(past_twice_l2, max_test_n()); // compute-sanitizer runs cap it
  const std::int64_t first = n / 3, tie = first + 1, last = n - 2;
  DeviceBuffer input, output, indices, workspace_buffer;
  const Status allocated = input.allocate(static_cast<std::size_t>(n) * sizeof(float));
  if (!allocated.ok())
  {
    cudaGetLastError();
    GTEST_SKIP() << "needs " << n * sizeof(float) / (1 << 20) << " MiB of device memory: " << allocated.message();
  }
  ASSERT_OK(output.allocate(sizeof(float)));
  ASSERT_OK(indices.allocate(sizeof(std::int64_t)));
  int checked = 0;
  for (Op op : {Op::argmin, Op::argmax})
  {
    const float extreme = op == Op::argmax ? 1e30f : -1e30f;
    ASSERT_OK(fill_random(DType::f32, input.data(), n, 43, nullptr));
    auto* in = static_cast<float*>(input.data());
    for (std::int64_t at : {first, tie, last})
    {
      ASSERT_EQ(cudaMemcpy(in + at, &extreme, sizeof(extreme), cudaMemcpyHostToDevice), cudaSuccess);
    }
    for (const Reduction* impl : registry())
    {
      if (unavailable_here(*impl))
      {
        continue;
      }
      const Info& info = impl->info();
      if (!info.supports(Kind::full) || !info.supports(DType::f32) || !info.supports(op) || info.max_n < n)
      {
        continue;
      }
      SCOPED_TRACE(info.name + (op == Op::argmax ? " argmax" : " argmin") + ", n = " + std::to_string(n));
      const Problem p{Kind::full, DType::f32, op, n, 1, input.data(), output.data(), nullptr,
                      static_cast<std::int64_t*>(indices.data())};
      ASSERT_NO_FATAL_FAILURE(expect_arg_extreme(*impl, p, workspace_buffer, output, indices, extreme, first));
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

// Float sums over half a GiB and more: large inputs take other launch shapes than the harness's sizes
// (modern.atomic switches to 512-thread blocks at 2^29 bytes), and rounding over 2^27 terms must stay
// within the same tolerance as everywhere else.
template <class T> void check_large_float_sum(std::int64_t n)
{
  const std::uint64_t seed = 27;
  std::vector<T> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
  {
    values[static_cast<std::size_t>(i)] = random_element<T>(seed, i);
  }
  const Reference ref = reference(values, 0, n, Op::sum);
  const Problem p{Kind::full, dtype_of<T>(), Op::sum, n, 1};
  sum_with_every_implementation<T>(n, seed, [&](const Reduction& impl, T got) {
    EXPECT_LE(std::fabs(static_cast<long double>(got) - ref.value),
              tolerance<T>(ref, Op::sum, sum_error_factor(impl, p, n)))
        << "got " << got << ", reference " << static_cast<double>(ref.value);
  });
}

TEST(LargeInputs, FloatSumOverHalfAGibibyte)
{
  REDU_REQUIRE_GPU();
  check_large_float_sum<float>((std::int64_t{1} << 27) + 13);
}

TEST(LargeInputs, DoubleSumOverHalfAGibibyte)
{
  REDU_REQUIRE_GPU();
  check_large_float_sum<double>((std::int64_t{1} << 26) + 7);
}

// Long segments given as offsets: 1024 of them, over 512 KiB each on average (segmented.adaptive gives
// such segments blocks of 512 threads, shorter ones 256), of odd lengths (misaligned starts), one empty.
template <class T> void check_long_segments(std::int64_t typical_length)
{
  Layout layout{Kind::segmented, {0}};
  for (std::int64_t s = 0; s < 1024; ++s)
  {
    layout.offsets.push_back(layout.offsets.back() + (s == 500 ? 0 : typical_length + (s * 37) % 101));
  }
  std::mt19937_64 rng(29);
  const std::vector<T> values = random_values<T>(layout.n(), Op::sum, rng);
  std::vector<Reference> refs;
  for (std::int64_t r = 0; r < layout.rows(); ++r)
  {
    refs.push_back(reference(values, layout.offsets[r], layout.offsets[r + 1], Op::sum));
  }
  int checked = 0;
  for (const Reduction* impl : registry())
  {
    if (unavailable_here(*impl))
    {
      continue;
    }
    const Info& info = impl->info();
    if (!info.supports(Kind::segmented) || !info.supports(dtype_of<T>()) || !info.supports(Op::sum))
    {
      continue;
    }
    SCOPED_TRACE(info.name);
    std::vector<long double> got;
    std::vector<std::int64_t> indices;
    ASSERT_OK(reduce_rows(*impl, Op::sum, layout, values, got, indices));
    const Problem p{Kind::segmented, dtype_of<T>(), Op::sum, layout.n(), layout.rows()};
    expect_rows_match(layout, got, [&](std::int64_t r) {
      return RowExpectation{refs[r].value, tolerance<T>(refs[r], Op::sum, sum_error_factor(*impl, p, refs[r].count)),
                            ""};
    });
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST(LargeInputs, LongFloatSegmentsAsOffsets)
{
  REDU_REQUIRE_GPU();
  check_long_segments<float>(131072);
}

TEST(LargeInputs, LongDoubleSegmentsAsOffsets)
{
  REDU_REQUIRE_GPU();
  check_long_segments<double>(65536);
}

} // namespace
} // namespace redu::test
