// Host-only tests of the bf16/f16 element types: the contract's output type and its
// validation, the determinism they are declared with, the harness's conversions and data, and the
// benchmark's --types. They run everywhere, CI included (no GPU needed).
#include "support/reference.hpp"

#include "bench/options.hpp"
#include "common/contract/reduction.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace redu::test
{
namespace
{

TEST(Halves, AreTwoByteFloatsNamedBf16AndF16)
{
  EXPECT_STREQ(to_string(DType::bf16), "bf16");
  EXPECT_STREQ(to_string(DType::f16), "f16");
  EXPECT_EQ(size_of(DType::bf16), 2u);
  EXPECT_EQ(size_of(DType::f16), 2u);
  EXPECT_TRUE(is_floating(DType::bf16) && is_floating(DType::f16));
  static_assert(dtype_of<__nv_bfloat16>() == DType::bf16 && dtype_of<__half>() == DType::f16);
}

TEST(Halves, SumsWriteF32AndEverythingElseTheInputType)
{
  for (DType half : {DType::bf16, DType::f16})
  {
    EXPECT_EQ(output_dtype(half, Op::sum), DType::f32);
    EXPECT_EQ(output_dtype(half, Op::sum_squares), DType::f32);
    for (Op op : {Op::min, Op::max, Op::argmin, Op::argmax})
    {
      EXPECT_EQ(output_dtype(half, op), half) << to_string(op);
    }
  }
  for (DType dtype : {DType::i32, DType::i64, DType::f32, DType::f64})
  {
    for (Op op : all_ops)
    {
      EXPECT_EQ(output_dtype(dtype, op), dtype) << to_string(dtype) << " " << to_string(op);
    }
  }
  const Problem sum{Kind::batched, DType::bf16, Op::sum, 30, 3};
  EXPECT_EQ(sum.input_bytes(), 60u);
  EXPECT_EQ(sum.output_bytes(), 12u);
  const Problem max{Kind::batched, DType::f16, Op::max, 30, 3};
  EXPECT_EQ(max.output_bytes(), 6u);
}

// Alignment and overlap are checked on the output type's bytes: a half sum's output is a 4-byte float.
TEST(Halves, ValidationChecksTheOutputAsItsOutputType)
{
  const Reduction* impl = find("halves.sum");
  ASSERT_NE(impl, nullptr);
  alignas(16) static char memory[256];
  for (DType dtype : {DType::bf16, DType::f16})
  {
    SCOPED_TRACE(to_string(dtype));
    Problem p{Kind::full, dtype, Op::sum, 64, 1, memory, memory + 128};
    EXPECT_TRUE(validate(*impl, p).ok()) << validate(*impl, p).message();
    p.output = memory + 130;
    EXPECT_NE(validate(*impl, p).message().find("output pointer is not aligned to 4 bytes"), std::string::npos);
    p.op = Op::min; // a half: 2-byte aligned is enough
    EXPECT_TRUE(validate(*impl, p).ok()) << validate(*impl, p).message();
    p.n      = 63; // input [0, 126): a half output at 126 is clear of it, a float sum's at 124 is not
    p.output = memory + 126;
    EXPECT_TRUE(validate(*impl, p).ok()) << validate(*impl, p).message();
    p.op     = Op::sum;
    p.output = memory + 124;
    EXPECT_NE(validate(*impl, p).message().find("output overlaps the input"), std::string::npos);
  }
}

TEST(Halves, AreDeclaredRunToRunInATreeAndNotGuaranteedInArrivalOrder)
{
  for (DType half : {DType::bf16, DType::f16})
  {
    for (Op op : {Op::sum, Op::sum_squares, Op::min, Op::max})
    {
      EXPECT_EQ(fixed_tree(half, op), Determinism::run_to_run) << to_string(op);
    }
    EXPECT_EQ(arrival_order_float_sums(half, Op::sum), Determinism::not_guaranteed);
    EXPECT_EQ(arrival_order_float_sums(half, Op::max), Determinism::run_to_run);
  }
}

TEST(HalfConversions, LimitsAreTheTypesOwn)
{
  EXPECT_EQ(wide(Limits<__nv_bfloat16>::infinity()), INFINITY);
  EXPECT_EQ(wide(-Limits<__half>::infinity()), -INFINITY);
  EXPECT_TRUE(std::isnan(wide(Limits<__nv_bfloat16>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(wide(Limits<__half>::quiet_NaN())));
  EXPECT_EQ(wide(Limits<__nv_bfloat16>::max()), 0x1.FEp127f);
  EXPECT_EQ(wide(Limits<__half>::max()), 65504.0f);
  EXPECT_EQ(wide(Limits<__half>::lowest()), -65504.0f);
  EXPECT_EQ(wide(Limits<__nv_bfloat16>::denorm_min()), std::ldexp(1.0f, -133));
  EXPECT_EQ(wide(Limits<__half>::denorm_min()), std::ldexp(1.0f, -24));
  EXPECT_EQ(Limits<__nv_bfloat16>::digits, 8);
  EXPECT_EQ(Limits<__half>::digits, 11);
}

TEST(HalfConversions, NarrowRoundsToNearestEvenAndWideIsExact)
{
  // bf16 keeps 7 fraction bits: 1 + 2^-8 is a tie (down to even 1), 1 + 3 x 2^-8 a tie up to 1 + 2^-6.
  EXPECT_EQ(wide(narrow<__nv_bfloat16>(1.0f + 0x1p-8f)), 1.0f);
  EXPECT_EQ(wide(narrow<__nv_bfloat16>(1.0f + 3 * 0x1p-8f)), 1.0f + 0x1p-6f);
  // f16 keeps 10: 1 + 2^-11 is a tie down; 65520 is the tie between 65504 and 2^16, which rounds to inf.
  EXPECT_EQ(wide(narrow<__half>(1.0f + 0x1p-11f)), 1.0f);
  EXPECT_EQ(wide(narrow<__half>(65520.0f)), INFINITY);
  EXPECT_EQ(wide(narrow<__half>(65519.0f)), 65504.0f);
  // Every half is a float: widening and narrowing again gives the same bits.
  std::mt19937_64 rng(5);
  for (const __nv_bfloat16 v : random_values<__nv_bfloat16>(1000, Op::sum, rng))
  {
    EXPECT_EQ(wide(narrow<__nv_bfloat16>(wide(v))), wide(v));
  }
}

// The reference sums the half values the device reads, and half sums are held to f32's u.
TEST(HalfReference, SumsTheRoundedValuesWithF32Tolerance)
{
  const std::vector<float> floats = {1.0f + 0x1p-8f, 3.0f, -0.5f};
  std::vector<__nv_bfloat16> halves;
  for (float f : floats)
  {
    halves.push_back(narrow<__nv_bfloat16>(f));
  }
  const Reference ref = reference(halves, 0, 3, Op::sum);
  EXPECT_EQ(ref.value, 3.5L); // 1 + 2^-8 was read as 1
  EXPECT_EQ(ref.sum_abs, 4.5L);
  EXPECT_EQ(tolerance<__nv_bfloat16>(ref, Op::sum, 4), tolerance<float>(ref, Op::sum, 4));
  EXPECT_EQ(tolerance<__half>(ref, Op::max, 4), 0);
  EXPECT_EQ(reference(halves, 0, 3, Op::sum_squares).value, 1.0L + 9.0L + 0.25L);
  EXPECT_EQ(reference(halves, 0, 3, Op::min).value, -0.5L);
  EXPECT_EQ(reference(halves, 0, 0, Op::max).value, -INFINITY) << "the identity of max is -inf";
}

// Exact data for half sums: integers a half holds (|k| <= 256 in bf16, 2048 in f16), or multiples of
// its smallest subnormal, whose magnitudes add up to at most 2^24 units: exact in an f32 accumulator.
template <class T>
void expect_exact_half_values(int largest)
{
  std::mt19937_64 rng(9);
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, (std::int64_t{1} << 24) + 3})
  {
    for (const bool subnormal : {false, true})
    {
      const std::vector<T> values = exact_values<T>(n, Op::sum, subnormal, rng);
      const float unit            = subnormal ? wide(Limits<T>::denorm_min()) : 1.0f;
      long double units           = 0;
      bool all_integers = true, any_nonzero = false;
      for (const T v : values)
      {
        const float k = wide(v) / unit;
        all_integers  = all_integers && k == std::trunc(k) && std::fabs(k) <= largest;
        any_nonzero   = any_nonzero || k != 0;
        units += std::fabs(k);
      }
      EXPECT_TRUE(all_integers) << "n = " << n;
      EXPECT_TRUE(any_nonzero || n == 1) << "n = " << n; // one value may be a drawn 0
      EXPECT_LE(units, 1 << 24) << "n = " << n;
    }
  }
}

TEST(HalfReference, ExactDataFitTheHalfAndTheF32Sum)
{
  expect_exact_half_values<__nv_bfloat16>(256);
  expect_exact_half_values<__half>(2048);
}

TEST(HalfReference, PoisonIsNaNForSumsAndTheWinningInfinityForMinMax)
{
  EXPECT_TRUE(std::isnan(wide(poison_value<__nv_bfloat16>(Op::sum))));
  EXPECT_EQ(wide(poison_value<__half>(Op::min)), -INFINITY);
  EXPECT_EQ(wide(poison_value<__half>(Op::max)), INFINITY);
}

TEST(HalfBench, TypesAcceptsBf16AndF16)
{
  const char* argv[] = {"bench", "--types=bf16,f16"};
  const auto parsed  = bench::parse_command_line(2, argv);
  ASSERT_TRUE(parsed.error.empty()) << parsed.error;
  EXPECT_EQ(parsed.options.dtypes, (std::vector<DType>{DType::bf16, DType::f16}));
}

} // namespace
} // namespace redu::test
