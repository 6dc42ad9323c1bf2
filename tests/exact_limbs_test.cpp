// The exact sum's integer arithmetic (handwritten/precision/exact_limbs.cuh) on the host, where it runs
// without a GPU: against sums a double holds exactly, against hand-made cancellations and ties, and for
// the property the GPU kernel is built on: any order and any split into pieces give the same bits.
#include "handwritten/precision/exact_host_sum.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

namespace redu::test
{
namespace
{

using precision::exact_host_sum;
using precision::ExactHostSum;

template <class T> auto bits_of(T x)
{
  return std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(x);
}

#define EXPECT_SAME_BITS(a, b) EXPECT_EQ(bits_of(a), bits_of(b)) << (a) << " vs " << (b)

// Floats of magnitude in [2^-4, 2^4) and mixed signs are multiples of 2^-27 below 2^4: 10^5 of them sum
// below 2^21, 48 bits, which a double holds exactly. Its one rounding to float is then the correctly
// rounded sum.
TEST(ExactLimbs, FloatSumsMatchTheOneRoundingOfAnExactDoubleSum)
{
  std::mt19937_64 rng(20261123);
  std::uniform_real_distribution<float> magnitude(0.0625f, 16.0f);
  for (int round = 0; round < 20; ++round)
  {
    std::vector<float> values(100000);
    double exact = 0;
    for (float& v : values)
    {
      v = (rng() & 1) ? magnitude(rng) : -magnitude(rng);
      exact += v;
    }
    EXPECT_SAME_BITS(exact_host_sum(values), static_cast<float>(exact));
  }
}

// The kernel's float shortcut (RunningSum<float>, exact_accumulate.cuh): 2^14 floats of one exponent
// window (biased exponent >> 4) add exactly in a double, and window_units_of turns that double into the
// float limbs. Every window, from the subnormals (0) to the largest finite floats (15), at the bound
// (shape 0): half the values the window's largest (top exponent, significand all ones), half its
// smallest step (lowest exponent, last bit set), same signs, so the sum needs all 53 bits of the double
// (2^13 x 2^39 steps): with 2^16 values this test fails.
TEST(ExactLimbs, AWindowOfFloatsSumsExactlyInADoubleAndLandsInTheLimbs)
{
  std::mt19937_64 rng(20261124);
  constexpr int count = 1 << 14;
  for (int window = 0; window < 16; ++window)
  {
    for (int shape = 0; shape < 3; ++shape) // largest, random same sign, random mixed signs
    {
      std::vector<float> values(count);
      for (int i = 0; i < count; ++i)
      {
        const int lowest = 16 * window;
        const int top    = std::min(16 * window + 15, 254);
        std::uint32_t bits;
        if (shape == 0)
        {
          bits = i % 2 == 0 ? (static_cast<std::uint32_t>(top) << 23) | 0x7fffffu
                            : (static_cast<std::uint32_t>(lowest) << 23) | 1u;
        }
        else
        {
          bits = (static_cast<std::uint32_t>(std::min(lowest + static_cast<int>(rng() % 16), 254)) << 23) |
                 static_cast<std::uint32_t>(rng() & 0x7fffff);
        }
        const bool negative = shape == 2 && (rng() & 1);
        values[i]           = std::bit_cast<float>(bits | (negative ? 0x80000000u : 0u));
      }
      double sum = 0;
      for (float v : values)
      {
        sum += v;
      }
      long long limbs[precision::ExactFormat<float>::limbs] = {};
      int limb                                              = 0;
      __int128 value                                        = 0;
      precision::window_units_of<float>(sum, window, limb, value);
      precision::add_pieces<__int128>(limb, value, [&](int j, long long v) { limbs[j] += v; });
      // Minus every value's own term: zero exactly when the double held the exact sum (a comparison after
      // rounding to float would hide an error below the float's last bit).
      for (float v : values)
      {
        const precision::Term<float> t = precision::term_of(-v);
        precision::add_pieces<long long>(t.limb, t.value, [&](int j, long long piece) { limbs[j] += piece; });
      }
      EXPECT_SAME_BITS(precision::round_exact<float>(limbs, 0), 0.0f) << "window " << window << " shape " << shape;
    }
  }
}

// The kernel's double shortcut (RunningSum<double>): a double's high part (26 bits, high_part) and its
// rest each add exactly in a double for 2^11 doubles of one exponent window, and window_units_of turns
// both into the double limbs. Every window but 127 (which the kernel adds element by element), at the
// bound (shape 0: half the values the window's largest, half its smallest step above a power of two,
// same signs: with 2^13 values this test fails), and random same-sign and mixed-sign values.
TEST(ExactLimbs, AWindowOfDoublesSumsExactlyInTwoDoublesAndLandsInTheLimbs)
{
  std::mt19937_64 rng(20261125);
  constexpr int count = 1 << 11;
  for (int window = 0; window < 127; ++window)
  {
    for (int shape = 0; shape < 3; ++shape)
    {
      std::vector<double> values(count);
      for (int i = 0; i < count; ++i)
      {
        const std::uint64_t lowest = 16 * static_cast<std::uint64_t>(window);
        std::uint64_t bits;
        if (shape == 0)
        {
          bits = i % 2 == 0 ? ((lowest + 15) << 52) | ((std::uint64_t{1} << 52) - 1) : (lowest << 52) | 1u;
        }
        else
        {
          bits = ((lowest + rng() % 16) << 52) | (rng() & ((std::uint64_t{1} << 52) - 1));
        }
        const bool negative = shape == 2 && (rng() & 1);
        values[i]           = std::bit_cast<double>(bits | (negative ? std::uint64_t{1} << 63 : 0));
      }
      double high = 0;
      double low  = 0;
      for (double v : values)
      {
        const double h = precision::high_part(v);
        high += h;
        low += v - h;
      }
      long long limbs[precision::ExactFormat<double>::limbs] = {};
      for (double part : {high, low})
      {
        int limb       = 0;
        __int128 value = 0;
        precision::window_units_of<double>(part, window, limb, value);
        precision::add_pieces<__int128>(limb, value, [&](int j, long long v) { limbs[j] += v; });
      }
      for (double v : values) // minus every value's own term: zero exactly when both doubles were exact
      {
        const precision::Term<double> t = precision::term_of(-v);
        precision::add_pieces<__int128>(t.limb, t.value, [&](int j, long long piece) { limbs[j] += piece; });
      }
      EXPECT_SAME_BITS(precision::round_exact<double>(limbs, 0), 0.0) << "window " << window << " shape " << shape;
    }
  }
}

// Doubles that are integers below 2^40 times one power of two: their sum is an int64, whose conversion to
// double rounds once; the power of two scales exactly (no overflow or underflow at these scales).
TEST(ExactLimbs, DoubleSumsMatchTheOneRoundingOfAnExactIntegerSum)
{
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> integer(-(std::int64_t{1} << 40), std::int64_t{1} << 40);
  for (int scale : {-1000, -60, 0, 37, 900})
  {
    std::vector<double> values(50000);
    std::int64_t exact = 0;
    for (double& v : values)
    {
      const std::int64_t k = integer(rng);
      exact += k;
      v = std::ldexp(static_cast<double>(k), scale);
    }
    EXPECT_SAME_BITS(exact_host_sum(values), std::ldexp(static_cast<double>(exact), scale)) << "scale 2^" << scale;
  }
}

// Elements across the whole exponent range, subnormals included, with both signs: shuffled, or cut into
// pieces whose integers are then added, the rounded sum keeps its bits.
template <class T> void check_order_and_pieces_do_not_matter()
{
  std::mt19937_64 rng(99);
  const int max_exponent = std::numeric_limits<T>::max_exponent - 20; // 2^16 of them stay finite
  std::uniform_int_distribution<int> exponent(std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits,
                                              max_exponent);
  std::uniform_real_distribution<T> significand(1, 2);
  std::vector<T> values(1 << 16);
  for (T& v : values)
  {
    v = std::ldexp(significand(rng), exponent(rng)) * ((rng() & 1) ? 1 : -1);
  }
  const T whole = exact_host_sum(values);
  for (int trial = 0; trial < 5; ++trial)
  {
    std::shuffle(values.begin(), values.end(), rng);
    EXPECT_SAME_BITS(exact_host_sum(values), whole);
    const std::size_t pieces = 2 + rng() % 200;
    ExactHostSum<T> total;
    for (std::size_t p = 0; p < pieces; ++p)
    {
      ExactHostSum<T> piece;
      for (std::size_t i = p; i < values.size(); i += pieces)
      {
        piece.add(values[i]);
      }
      total.add(piece);
    }
    EXPECT_SAME_BITS(total.rounded(), whole) << pieces << " pieces";
  }
}

TEST(ExactLimbs, FloatOrderAndPiecesDoNotMatter)
{
  check_order_and_pieces_do_not_matter<float>();
}

TEST(ExactLimbs, DoubleOrderAndPiecesDoNotMatter)
{
  check_order_and_pieces_do_not_matter<double>();
}

// What a tree gets wrong and the exact sum gets right: a huge value and its negative around a small one,
// and an intermediate past the largest float that the final result is not.
TEST(ExactLimbs, CancellationLeavesTheSmallTermsExactly)
{
  const float huge = std::ldexp(1.0f, 100);
  EXPECT_SAME_BITS(exact_host_sum<float>({huge, 1.0f, -huge}), 1.0f);
  EXPECT_SAME_BITS(exact_host_sum<float>({huge, 3.0f, -huge, 0.25f}), 3.25f);
  const float max = std::numeric_limits<float>::max();
  EXPECT_SAME_BITS(exact_host_sum<float>({max, max, -max}), max);
  const double dhuge = std::ldexp(1.0, 1000);
  EXPECT_SAME_BITS(exact_host_sum<double>({dhuge, std::ldexp(1.0, -1000), -dhuge}), std::ldexp(1.0, -1000));
}

// The carry step (balance_step, exact_limbs.cuh, which warp 0 takes with a limb per lane): the same
// integer as normalize's, every digit but the top one within 2^32 after one step from limbs below 2^62
// and within [-2^31 - 1, 2^31] after two, and a small negative number zero above its magnitude, where
// normalize's digits are 2^32 - 1 up to the top limb. publish_block sends one atomic per non-zero digit.
TEST(ExactLimbs, BalancedDigitsKeepTheValueAndStayNearTheMagnitude)
{
  constexpr int L = precision::ExactFormat<double>::limbs;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<long long> wide(-(1LL << 62), 1LL << 62);
  for (int trial = 0; trial < 1000; ++trial)
  {
    long long limbs[L];
    for (long long& limb : limbs)
    {
      limb = wide(rng) >> (rng() % 63); // every magnitude from 1 to 2^62
    }
    long long balanced[L], carried[L];
    std::copy(limbs, limbs + L, balanced);
    std::copy(limbs, limbs + L, carried);
    precision::balance_step<double>(balanced);
    for (int j = 0; j + 1 < L; ++j)
    {
      ASSERT_LE(std::llabs(balanced[j]), 1LL << 32) << "one step, limb " << j;
    }
    precision::balance_step<double>(balanced);
    for (int j = 0; j + 1 < L; ++j)
    {
      ASSERT_GE(balanced[j], -(1LL << 31) - 1) << "two steps, limb " << j;
      ASSERT_LE(balanced[j], 1LL << 31) << "two steps, limb " << j;
    }
    precision::normalize<double>(balanced);
    precision::normalize<double>(carried);
    ASSERT_TRUE(std::equal(balanced, balanced + L, carried)) << "trial " << trial;
  }
  long long minus_three[L] = {-3};
  long long normalized[L]  = {-3};
  precision::balance_step<double>(minus_three);
  precision::normalize<double>(normalized);
  EXPECT_EQ(minus_three[0], -3);
  EXPECT_EQ(std::count(minus_three + 1, minus_three + L, 0LL), L - 1);
  EXPECT_EQ(normalized[0], (1LL << 32) - 3);
  EXPECT_EQ(std::count(normalized + 1, normalized + L - 1, (1LL << 32) - 1), L - 2);
  EXPECT_EQ(normalized[L - 1], -1);
}

// The rounding from balanced digits (round_exact, and warp 0's round on the GPU): an integer X below 2^120
// placed at limb `at` (X 2^(32 at) units), its digits then handed between neighbouring limbs at random
// (carries that do not change the value, of either sign, so that lower digits borrow from higher ones),
// rounds as the compiler's own conversion of X does (correctly rounded), scaled by a power of two.
template <class T> void expect_rounding_ignores_carries(int at, std::uint64_t seed)
{
  constexpr int L = precision::ExactFormat<T>::limbs;
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 20000; ++trial)
  {
    const int bits              = 1 + static_cast<int>(rng() % 120);
    unsigned __int128 magnitude = (static_cast<unsigned __int128>(rng()) << 64 | rng()) >> (128 - bits);
    int lead                    = -1; // the leading bit's position
    for (unsigned __int128 m = magnitude; m != 0; m >>= 1)
    {
      ++lead;
    }
    const int below = lead + 1 - std::numeric_limits<T>::digits; // bits under the significand
    if (trial % 4 == 0 && below > 1)                             // a tie, or one unit off it either way
    {
      const unsigned __int128 half = static_cast<unsigned __int128>(1) << (below - 1);
      magnitude                    = ((magnitude >> below) << below | half) + static_cast<int>(rng() % 3) - 1;
    }
    const bool negative    = rng() & 1;
    long long limbs[L]     = {};
    unsigned __int128 rest = magnitude;
    for (int j = at; j < L - 1 && rest != 0; ++j, rest >>= 32)
    {
      limbs[j] = static_cast<long long>(rest & 0xffffffffu);
    }
    for (int j = at; j < L; ++j)
    {
      limbs[j] = negative ? -limbs[j] : limbs[j];
    }
    for (int move = 0; move < 8; ++move) // lend between neighbours: limb j + 1 gives k, limb j takes k 2^32
    {
      const int j       = at + static_cast<int>(rng() % 5);
      const long long k = static_cast<long long>(rng() % 2001) - 1000;
      if (j + 1 < L)
      {
        limbs[j + 1] -= k;
        limbs[j] += k * (1LL << 32);
      }
    }
    const T scaled = static_cast<T>(magnitude); // correctly rounded by the compiler's runtime
    const T expected =
        magnitude == 0 ? T(0) // an exact zero is +0
                       : (negative ? -1 : 1) * std::ldexp(scaled, 32 * at + precision::ExactFormat<T>::unit_exponent);
    ASSERT_EQ(bits_of(precision::round_exact<T>(limbs, 0)), bits_of(expected))
        << "trial " << trial << ", " << bits << " bits at limb " << at;
  }
}

TEST(ExactLimbs, RoundingFromBalancedDigitsIgnoresHowTheCarriesLie)
{
  expect_rounding_ignores_carries<float>(3, 11);   // 1 .. 2^120 times 2^-53: normal floats
  expect_rounding_ignores_carries<double>(34, 12); // 1 .. 2^120 times 2^14: normal doubles
  expect_rounding_ignores_carries<double>(60, 13); // .. 2^966
}

// Round to nearest, ties to even, with the sticky bits far below the significand counted.
TEST(ExactLimbs, TiesGoToEvenAndStickyBitsBreakThem)
{
  const float two24 = 16777216.0f;                                     // 2^24: the float spacing there is 2
  EXPECT_SAME_BITS(exact_host_sum<float>({two24, 1.0f}), two24);       // tie, down to even
  EXPECT_SAME_BITS(exact_host_sum<float>({two24, 3.0f}), 16777220.0f); // tie, up to even
  EXPECT_SAME_BITS(exact_host_sum<float>({two24, 1.0f, std::ldexp(1.0f, -100)}), 16777218.0f);     // just above the tie
  EXPECT_SAME_BITS(exact_host_sum<float>({-two24, -1.0f, -std::ldexp(1.0f, -100)}), -16777218.0f); // its mirror
  EXPECT_SAME_BITS(exact_host_sum<float>({two24, 1.0f, -std::ldexp(1.0f, -100)}), two24);          // just below it
  const double two53 = 9007199254740992.0;                                                         // 2^53
  EXPECT_SAME_BITS(exact_host_sum<double>({two53, 1.0}), two53);
  EXPECT_SAME_BITS(exact_host_sum<double>({two53, 1.0, std::ldexp(1.0, -1074)}), two53 + 2);
}

TEST(ExactLimbs, SubnormalsAreSummedNotFlushed)
{
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_SAME_BITS(exact_host_sum<float>(std::vector<float>(1000, tiny)), 1000 * tiny);
  EXPECT_SAME_BITS(exact_host_sum<float>({std::numeric_limits<float>::min(), -tiny}),
                   std::numeric_limits<float>::min() - tiny);
  const double dtiny = std::numeric_limits<double>::denorm_min();
  EXPECT_SAME_BITS(exact_host_sum<double>({dtiny, dtiny, dtiny}), 3 * dtiny);
}

TEST(ExactLimbs, OverflowOnlyWhenTheExactSumOverflows)
{
  const float max = std::numeric_limits<float>::max();
  EXPECT_SAME_BITS(exact_host_sum<float>({max, max}), std::numeric_limits<float>::infinity());
  EXPECT_SAME_BITS(exact_host_sum<float>({-max, -max}), -std::numeric_limits<float>::infinity());
  std::vector<float> many(1 << 21, max); // 2^21 x 2^128: far past the float range, inside the limbs
  many.resize(many.size() * 2, -max);
  EXPECT_SAME_BITS(exact_host_sum(many), 0.0f);
  const double dmax = std::numeric_limits<double>::max();
  std::vector<double> dmany(1 << 20, dmax);
  dmany.push_back(-dmax);
  EXPECT_SAME_BITS(exact_host_sum(dmany), std::numeric_limits<double>::infinity());
}

TEST(ExactLimbs, NonFiniteInputsFollowTheContract)
{
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::isnan(exact_host_sum<float>({1.0f, std::numeric_limits<float>::quiet_NaN()})));
  EXPECT_TRUE(std::isnan(exact_host_sum<float>({inf, 1.0f, -inf})));
  EXPECT_SAME_BITS(exact_host_sum<float>({inf, 1.0f, inf}), inf);
  EXPECT_SAME_BITS(exact_host_sum<float>({-inf, 5.0f}), -inf);
  EXPECT_TRUE(std::isnan(
      exact_host_sum<double>({std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()})));
}

// The accuracy study's reference: the rounded sum plus the rounded remainder, about twice the precision.
TEST(ExactLimbs, TheLongDoubleReferenceKeepsWhatTheRoundingDropped)
{
  ExactHostSum<float> sum;
  sum.add(std::vector<float>{1.0f, std::ldexp(1.0f, -40), std::ldexp(1.0f, -50)});
  EXPECT_EQ(sum.to_long_double(), 1.0L + std::ldexp(1.0L, -40) + std::ldexp(1.0L, -50));
  ExactHostSum<double> dsum;
  dsum.add(std::vector<double>{-1.0, -std::ldexp(1.0, -60)});
  EXPECT_EQ(dsum.to_long_double(), -1.0L - std::ldexp(1.0L, -60));
}

TEST(ExactLimbs, AnExactZeroIsPositive)
{
  EXPECT_SAME_BITS(exact_host_sum<float>({}), 0.0f);
  EXPECT_SAME_BITS(exact_host_sum<float>({-0.0f, -0.0f}), 0.0f);
  EXPECT_SAME_BITS(exact_host_sum<float>({2.5f, -2.5f}), 0.0f);
  EXPECT_SAME_BITS(exact_host_sum<double>({-0.0}), 0.0);
}

} // namespace
} // namespace redu::test
