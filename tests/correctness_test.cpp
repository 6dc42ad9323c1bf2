// The shared correctness harness: every registered implementation x its declared element types x
// operators x problem kinds, each over the edge sizes and shapes in support/shapes.hpp, on fresh random
// data, against an independent CPU reference. Implementations that declare themselves deterministic
// are also run again on the same input and must reproduce the result bit for bit.
#include "support/cases.hpp"
#include "support/gpu.hpp"
#include "support/reference.hpp"
#include "support/run_helpers.hpp"
#include "support/shapes.hpp"

#include "common/reduction.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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

// Segment i of `shape` is [begin(i), end(i)).
std::int64_t segment_begin(const Shape& shape, Kind kind, std::int64_t i)
{
  return kind == Kind::segmented ? shape.offsets[i] : i * (shape.segments > 0 ? shape.n / shape.segments : 0);
}

class Correctness : public testing::TestWithParam<Case>
{
protected:
  // Checks one shape; the input starts `misalign` elements past a 256-byte aligned allocation.
  template <class T>
  void check(const Shape& shape, std::mt19937_64& rng, int misalign);
};

template <class T>
void Correctness::check(const Shape& shape, std::mt19937_64& rng, int misalign)
{
  const Case& c = GetParam();
  SCOPED_TRACE("shape " + shape.label + ", input misaligned by " + std::to_string(misalign) + " elements");
  const std::vector<T> values = random_values<T>(shape.n, c.op, rng);

  DeviceBuffer input, output, indices, offsets, workspace_buffer;
  std::vector<T> padded(misalign, T(0));
  padded.insert(padded.end(), values.begin(), values.end());
  ASSERT_OK(upload(padded, input));
  const void* input_start = input.as<const T>() + misalign;
  ASSERT_OK(output.allocate(shape.segments * sizeof(T)));
  if (is_arg(c.op))
  {
    ASSERT_OK(indices.allocate(shape.segments * sizeof(std::int64_t)));
  }
  if (c.kind == Kind::segmented)
  {
    ASSERT_OK(upload(shape.offsets, offsets));
  }
  Problem problem{c.kind, c.dtype, c.op, shape.n, shape.segments, shape.n > 0 ? input_start : nullptr, output.data(),
                  offsets.as<const std::int64_t>(), indices.as<std::int64_t>()};
  Workspace workspace;
  ASSERT_OK(allocate_workspace(*c.impl, problem, workspace_buffer, workspace));

  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  std::vector<T> result;
  std::vector<std::int64_t> result_indices;
  const auto run_once = [&]() -> Status {
    REDU_TRY(poison(output));
    REDU_TRY(poison(indices));
    REDU_TRY(run_and_wait(*c.impl, problem, workspace, stream));
    REDU_TRY(download(indices, result_indices));
    return download(output, result);
  };
  const Status first = run_once();
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  ASSERT_TRUE(first.ok()) << first.message();
  ASSERT_EQ(static_cast<std::int64_t>(result.size()), shape.segments);

  int failures = 0;
  for (std::int64_t i = 0; i < shape.segments; ++i)
  {
    const std::int64_t begin = segment_begin(shape, c.kind, i);
    const std::int64_t end   = c.kind == Kind::segmented ? shape.offsets[i + 1] : begin + shape.n / shape.segments;
    const Reference ref      = reference(values, begin, end, c.op);
    const long double got    = static_cast<long double>(result[i]);
    const long double tol    = tolerance<T>(ref, c.op);
    const bool value_ok      = !std::isnan(got) && std::fabs(got - ref.value) <= tol;
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

  if (c.impl->info().deterministic && shape.n >= 4096)
  {
    const std::vector<T> first_result                = result;
    const std::vector<std::int64_t> first_indices = result_indices;
    for (int repeat = 0; repeat < 2; ++repeat)
    {
      ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
      const Status again = run_once();
      ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
      ASSERT_TRUE(again.ok()) << again.message();
      ASSERT_TRUE(same_bits(first_result, result) && first_indices == result_indices)
        << "declared deterministic, but run " << repeat + 2 << " gave different bits";
    }
  }
}

TEST_P(Correctness, MatchesReferenceOnEveryShape)
{
  REDU_REQUIRE_GPU();
  const Case& c            = GetParam();
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const Shape& shape : shapes_for(c.kind, rng))
  {
    if (shape.n > c.impl->info().max_n || shape.n > max_test_n())
    {
      continue; // refusals past max_n are checked in bad_input_test.cpp
    }
    visit_dtype(c.dtype, [&](auto type) { check<decltype(type)>(shape, rng, 0); });
    if (HasFatalFailure())
    {
      return;
    }
  }
}

// Vectorised kernels must handle any element-aligned start: offsets of 1, 2 and 3 elements from an
// aligned allocation, on shapes with ragged heads and tails.
TEST_P(Correctness, MatchesReferenceAtMisalignedInputs)
{
  REDU_REQUIRE_GPU();
  const Case& c            = GetParam();
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::vector<std::string> labels = {"n=1025", "n=65537", "n=999983", "7x333", "64x4097", "mixed-with-empties",
                                           "lognormal"};
  for (const Shape& shape : shapes_for(c.kind, rng))
  {
    if (std::find(labels.begin(), labels.end(), shape.label) == labels.end() || shape.n > c.impl->info().max_n
        || shape.n > max_test_n())
    {
      continue;
    }
    for (int misalign = 1; misalign <= 3; ++misalign)
    {
      visit_dtype(c.dtype, [&](auto type) { check<decltype(type)>(shape, rng, misalign); });
      if (HasFatalFailure())
      {
        return;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, Correctness, testing::ValuesIn(registered_cases()), case_name);

} // namespace
} // namespace redu::test
