// The shared correctness harness: every registered implementation x its declared element types x
// operators x problem kinds, each over the edge sizes and shapes in support/shapes.hpp, against an
// independent CPU reference. Four kinds of data:
//  - random (mixed signs, fresh every run): floats within the implementation's stated error bound;
//  - exact (float sums only): integers, and multiples of the smallest subnormal, whose every partial
//    sum is representable, so any summation order gives the exact sum: tolerance 0, and one dropped or
//    doubled element fails;
//  - same-sign (float sums only): the worst case for the error bound;
//  - full-range integers (integer sums only): the sums wrap, and must wrap like two's complement.
// Every input is padded on both sides with poison (NaN, or the value that would win a min/max), and a
// segmented input's elements before its first offset too, so an over-read changes the result. Outputs
// are poisoned before every run. Implementations that declare run_to_run or gpu_to_gpu determinism are
// also run again on the same input, with other work on the GPU, and must reproduce the result bit for bit.
#include "support/cases.hpp"
#include "support/device_problem.hpp"
#include "support/gpu.hpp"
#include "support/reference.hpp"
#include "support/run_helpers.hpp"
#include "support/shapes.hpp"

#include "common/contract/reduction.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>

namespace redu::test
{
namespace
{

std::vector<Shape> shapes_for(Kind kind, std::mt19937_64& rng)
{
  switch (kind)
  {
    case Kind::full:
      return full_shapes(rng);
    case Kind::batched:
      return batched_shapes(rng);
    case Kind::segmented:
      break;
  }
  return segmented_shapes(rng);
}

enum class Data
{
  random,
  exact_integers,
  exact_subnormals,
  same_sign,
  full_range_integers
};

const char* to_string(Data data)
{
  switch (data)
  {
    case Data::random:
      return "random";
    case Data::exact_integers:
      return "exact integers";
    case Data::exact_subnormals:
      return "exact multiples of the smallest subnormal";
    case Data::same_sign:
      return "same-sign";
    case Data::full_range_integers:
      break;
  }
  return "full-range integers";
}

template <class T>
std::vector<T> values_for(Data data, std::int64_t n, Op op, std::mt19937_64& rng)
{
  if constexpr (is_float_element<T>)
  {
    if (data == Data::exact_integers || data == Data::exact_subnormals)
    {
      return exact_values<T>(n, op, data == Data::exact_subnormals, rng);
    }
  }
  else if (data == Data::full_range_integers)
  {
    std::uniform_int_distribution<T> any(std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max());
    std::vector<T> values(static_cast<std::size_t>(n));
    std::generate(values.begin(), values.end(), [&] { return any(rng); });
    return values;
  }
  std::vector<T> values = random_values<T>(n, op, rng);
  if (data == Data::same_sign)
  {
    std::transform(values.begin(), values.end(), values.begin(), magnitude<T>);
  }
  return values;
}

// Runs case `c` on one shape and checks every output. The input starts `misalign` elements past a
// 256-byte boundary of its allocation, behind 256 bytes of poison, and is followed by 256 more
// (Placement in support/device_problem.hpp).
template <class T>
void check(const Case& c, const Shape& shape, Data data, std::mt19937_64& rng, int misalign)
{
  SCOPED_TRACE("shape " + shape.label + ", " + to_string(data) + " data, input misaligned by "
               + std::to_string(misalign) + " elements");
  std::vector<T> values = values_for<T>(data, shape.n, c.op, rng);
  const T poison_element = poison_value<T>(c.op);
  if (c.kind == Kind::segmented && shape.segments > 0)
  {
    std::fill(values.begin(), values.begin() + shape.offsets.front(), poison_element); // never read
  }
  DeviceProblem d;
  ASSERT_OK(make_device_problem(c.kind, c.op, shape, values, c.impl, d, Placement<T>{misalign, poison_element}));

  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  std::vector<long double> result; // in the output type (f32 for a half sum), widened
  std::vector<unsigned char> result_bits;
  std::vector<std::int64_t> result_indices;
  const auto run_once = [&]() -> Status {
    REDU_TRY(poison(d.output));
    REDU_TRY(poison(d.indices));
    REDU_TRY(run_and_wait(*c.impl, d.problem, d.workspace, stream));
    REDU_TRY(download(d.indices, result_indices));
    REDU_TRY(download(d.output, result_bits));
    return download_outputs(d, result);
  };
  const Status first = run_once();
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  ASSERT_TRUE(first.ok()) << first.message();
  ASSERT_EQ(static_cast<std::int64_t>(result.size()), shape.segments);

  const bool exact = data == Data::exact_integers || data == Data::exact_subnormals;
  int failures     = 0;
  for (std::int64_t i = 0; i < shape.segments; ++i)
  {
    const std::int64_t begin = segment_begin(shape, c.kind, i);
    const std::int64_t end   = segment_end(shape, c.kind, i);
    const Reference ref      = reference(values, begin, end, c.op);
    const long double got    = result[i];
    const long double tol    = exact ? 0 : tolerance<T>(ref, c.op, sum_error_factor(*c.impl, d.problem, ref.count));
    const bool value_ok      = !std::isnan(got) && (got == ref.value || std::fabs(got - ref.value) <= tol);
    const bool index_ok      = !is_arg(c.op) || result_indices[i] == ref.index;
    if (!(value_ok && index_ok) && ++failures <= 5)
    {
      ADD_FAILURE() << "segment " << i << " [" << begin << ", " << end << "): got " << static_cast<double>(got)
                    << (is_arg(c.op) ? " at index " + std::to_string(result_indices[i]) : std::string())
                    << ", expected " << static_cast<double>(ref.value)
                    << (is_arg(c.op) ? " at index " + std::to_string(ref.index) : std::string()) << " (tolerance "
                    << static_cast<double>(tol) << ", sum|x| " << static_cast<double>(ref.sum_abs) << ")";
    }
  }
  ASSERT_EQ(failures, 0) << failures << " of " << shape.segments << " outputs wrong";

  if (c.impl->info().is_deterministic(c.dtype, c.op) && shape.n >= 4096)
  {
    const std::vector<unsigned char> first_bits   = result_bits;
    const std::vector<std::int64_t> first_indices = result_indices;
    // Each rerun starts while other work fills the GPU (a 64 MiB memset on another stream), so blocks
    // are scheduled and finish in another order than the first time.
    DeviceBuffer busy;
    ASSERT_OK(busy.allocate(std::size_t{64} << 20));
    cudaStream_t other = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
    for (int repeat = 0; repeat < 2; ++repeat)
    {
      ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
      ASSERT_EQ(cudaMemsetAsync(busy.data(), repeat, busy.bytes(), other), cudaSuccess);
      const Status again = run_once();
      ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
      ASSERT_TRUE(again.ok()) << again.message();
      ASSERT_TRUE(same_bits(first_bits, result_bits) && first_indices == result_indices)
          << "declared " << to_string(c.impl->info().determinism_of(c.dtype, c.op)) << ", but run " << repeat + 2
          << " gave different bits";
    }
    ASSERT_EQ(cudaStreamSynchronize(other), cudaSuccess);
    ASSERT_EQ(cudaStreamDestroy(other), cudaSuccess);
  }
}

// Which shapes a check takes: all of its kind, or only those marked misaligned (Shape::misaligned).
enum class Shapes
{
  all,
  misaligned_only
};

// Checks case `c` with `data` on the shapes of its kind that `which` selects, at each misalignment in
// `misaligns`.
void check_shapes(const Case& c, Data data, const std::vector<int>& misaligns, Shapes which = Shapes::all)
{
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const Shape& shape : shapes_for(c.kind, rng))
  {
    if ((which == Shapes::misaligned_only && !shape.misaligned) || shape.n > c.impl->info().max_n
        || shape.n > max_test_n())
    {
      continue; // refusals past max_n are checked in bad_input_test.cpp
    }
    for (int misalign : misaligns)
    {
      visit_dtype(c.dtype, [&](auto type) { check<decltype(type)>(c, shape, data, rng, misalign); });
      if (testing::Test::HasFatalFailure())
      {
        return;
      }
    }
  }
}

class Correctness : public testing::TestWithParam<Case>
{};

TEST_P(Correctness, MatchesReferenceOnEveryShape)
{
  REDU_REQUIRE_GPU();
  REDU_REQUIRE_AVAILABLE(*GetParam().impl);
  check_shapes(GetParam(), Data::random, {0});
}

// Vectorised kernels must handle any element-aligned start: offsets of 1, 2 and 3 elements from an
// aligned allocation, on shapes with ragged heads and tails.
TEST_P(Correctness, MatchesReferenceAtMisalignedInputs)
{
  REDU_REQUIRE_GPU();
  REDU_REQUIRE_AVAILABLE(*GetParam().impl);
  check_shapes(GetParam(), Data::random, {1, 2, 3}, Shapes::misaligned_only);
}

INSTANTIATE_TEST_SUITE_P(Registry, Correctness, testing::ValuesIn(registered_cases()), case_name);

// Float sums (sum, sum_squares) only: the cases below exist for them alone.
std::vector<Case> float_sum_cases()
{
  std::vector<Case> cases;
  for (const Case& c : registered_cases())
  {
    if (is_floating(c.dtype) && (c.op == Op::sum || c.op == Op::sum_squares))
    {
      cases.push_back(c);
    }
  }
  return cases;
}

class FloatSums : public testing::TestWithParam<Case>
{};

// Exact data: tolerance 0. Sums of subnormals must not be flushed to zero.
TEST_P(FloatSums, ExactDataGiveExactSums)
{
  REDU_REQUIRE_GPU();
  REDU_REQUIRE_AVAILABLE(*GetParam().impl);
  check_shapes(GetParam(), Data::exact_integers, {0});
  check_shapes(GetParam(), Data::exact_integers, {1, 3}, Shapes::misaligned_only);
  if (GetParam().op != Op::sum)
  {
    return;
  }
  if (const ContractDeparture& departure = GetParam().impl->info().subnormal_sum_departure;
      departure.applies_to(GetParam().dtype))
  {
    std::cout << "[   NOTE   ] sums of subnormals not checked for " << GetParam().impl->info().name << " "
              << to_string(GetParam().dtype) << " (tests/library_departures_test.cpp shows it): " << departure.why
              << "\n";
    return;
  }
  check_shapes(GetParam(), Data::exact_subnormals, {0});
}

TEST_P(FloatSums, SameSignDataStayWithinTheStatedBound)
{
  REDU_REQUIRE_GPU();
  REDU_REQUIRE_AVAILABLE(*GetParam().impl);
  check_shapes(GetParam(), Data::same_sign, {0});
}

INSTANTIATE_TEST_SUITE_P(Registry, FloatSums, testing::ValuesIn(float_sum_cases()), case_name);

std::vector<Case> integer_sum_cases()
{
  std::vector<Case> cases;
  for (const Case& c : registered_cases())
  {
    if (!is_floating(c.dtype) && (c.op == Op::sum || c.op == Op::sum_squares))
    {
      cases.push_back(c);
    }
  }
  return cases;
}

class IntegerSums : public testing::TestWithParam<Case>
{};

TEST_P(IntegerSums, WrapLikeTwosComplement)
{
  REDU_REQUIRE_GPU();
  REDU_REQUIRE_AVAILABLE(*GetParam().impl);
  check_shapes(GetParam(), Data::full_range_integers, {0});
}

INSTANTIATE_TEST_SUITE_P(Registry, IntegerSums, testing::ValuesIn(integer_sum_cases()), case_name);

} // namespace
} // namespace redu::test
