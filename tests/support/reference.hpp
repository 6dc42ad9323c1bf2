// The harness's independent side: input generation, a double-precision / exact CPU reference, and the
// tolerance a float result must meet. Nothing here shares code with the implementations under test.
#pragma once

#include "elements.hpp"

#include "common/contract/problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace redu::test
{

// Calls f(T{}) with the C++ type of `dtype`.
template <class F>
decltype(auto) visit_dtype(DType dtype, F&& f)
{
  switch (dtype)
  {
    case DType::i32:
      return f(std::int32_t{});
    case DType::i64:
      return f(std::int64_t{});
    case DType::f32:
      return f(float{});
    case DType::f64:
      break;
    case DType::bf16:
      return f(__nv_bfloat16{});
    case DType::f16:
      return f(__half{});
  }
  return f(double{});
}

// Fresh random data. Integers for sums stay in a range whose every partial sum is exact and fits
// (|x| <= 100 for int32 keeps 2^24 elements under 2^31; |x| <= 10 for int32 sums of squares); min/max
// draw from a wide range. argmin/argmax draw from a few dozen values so that ties are everywhere and
// "first occurrence" is really tested. Floats have mixed sign and magnitudes spread over 2^-3 .. 2^3;
// halves are those floats rounded to the half type, so the reference sums the values the device reads.
template <class T>
T integer_bound(Op op)
{
  const bool narrow = sizeof(T) == 4;
  switch (op)
  {
    case Op::sum:
      return narrow ? T(100) : T(1) << 32;
    case Op::sum_squares:
      return narrow ? T(10) : T(1) << 16;
    case Op::argmin:
    case Op::argmax:
      return T(50);
    default:
      return narrow ? T(1) << 30 : T(1) << 60;
  }
}

template <class T>
std::vector<T> random_values(std::int64_t n, Op op, std::mt19937_64& rng)
{
  std::vector<T> values(static_cast<std::size_t>(n));
  if constexpr (is_half<T>)
  {
    const std::vector<float> wide_values = random_values<float>(n, op, rng);
    std::transform(wide_values.begin(), wide_values.end(), values.begin(), narrow<T, float>);
  }
  else if constexpr (std::is_integral_v<T>)
  {
    const T bound = integer_bound<T>(op);
    std::uniform_int_distribution<T> dist(-bound, bound);
    std::generate(values.begin(), values.end(), [&] { return dist(rng); });
  }
  else if (is_arg(op))
  {
    std::uniform_int_distribution<int> quarter(-40, 40);
    std::generate(values.begin(), values.end(), [&] { return static_cast<T>(quarter(rng) / 4.0); });
  }
  else
  {
    std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
    std::uniform_int_distribution<int> exponent(-3, 3);
    std::generate(values.begin(), values.end(), [&] {
      return static_cast<T>(std::ldexp(mantissa(rng), exponent(rng)));
    });
  }
  return values;
}

// The contract's identities (common/contract/problem.hpp), written out independently of common/contract/ops.cuh:
// +-inf for float min/max, the integer type's extremes otherwise.
template <class T>
T identity(Op op)
{
  constexpr bool has_inf = Limits<T>::has_infinity;
  switch (op)
  {
    case Op::sum:
    case Op::sum_squares:
      return T(0);
    case Op::min:
    case Op::argmin:
      return has_inf ? Limits<T>::infinity() : Limits<T>::max();
    default:
      return has_inf ? -Limits<T>::infinity() : Limits<T>::lowest();
  }
}

// Exact data for float sums: integers times `scale` (1, or the smallest subnormal of T) whose magnitudes
// add up to at most 2^digits units of the accumulating type (Wide<T>: f32 for halves), so every partial
// sum in any order is exactly representable and every implementation must return the exact sum
// (tolerance 0). Sums of squares use scale 1 (the square of a subnormal underflows). Ints go as high as
// the budget allows: up to 2^digits / n, at least 1, and at most 2^20 and T's 2^digits (256 for bf16,
// 2048 for f16: every such integer is a half); for n beyond the budget, a random ~90% of the budget's
// elements are +-1 and the rest 0.
template <class T>
std::vector<T> exact_values(std::int64_t n, Op op, bool subnormal_scale, std::mt19937_64& rng)
{
  static_assert(is_float_element<T>);
  const long double budget = std::ldexp(1.0L, Limits<Wide<T>>::digits);
  const bool squares       = op == Op::sum_squares;
  const T scale            = subnormal_scale && !squares ? Limits<T>::denorm_min() : T(1);
  std::vector<T> values(static_cast<std::size_t>(n));
  const long double per_element = n > 0 ? budget / n : budget;
  const long double largest     = std::min(std::ldexp(1.0L, 20), std::ldexp(1.0L, Limits<T>::digits));
  const long double bound       = std::min<long double>(squares ? std::sqrt(per_element) : per_element, largest);
  if (bound >= 1)
  {
    std::uniform_int_distribution<std::int64_t> dist(-static_cast<std::int64_t>(bound), static_cast<std::int64_t>(bound));
    std::generate(values.begin(), values.end(),
                  [&] { return narrow<T>(static_cast<Wide<T>>(dist(rng)) * wide(scale)); });
    return values;
  }
  std::bernoulli_distribution nonzero(0.9L * per_element), negative(0.5);
  long double total = 0;
  for (T& v : values)
  {
    if (total + 1 <= budget && nonzero(rng))
    {
      v = negative(rng) ? -scale : scale;
      total += 1;
    }
  }
  return values;
}

// Values that an over-read before or after the input (or before the first offset) cannot hide: NaN
// for float sums, the opposite extreme for min/max (-inf for min, +inf for max), and for integer
// sums a large value.
template <class T>
T poison_value(Op op)
{
  constexpr bool floating = is_float_element<T>;
  switch (op)
  {
    case Op::sum:
    case Op::sum_squares:
      if constexpr (floating)
      {
        return Limits<T>::quiet_NaN();
      }
      else
      {
        return Limits<T>::max() / 3;
      }
    case Op::min:
    case Op::argmin:
      return floating ? -Limits<T>::infinity() : Limits<T>::lowest();
    default:
      return floating ? Limits<T>::infinity() : Limits<T>::max();
  }
}

// The reference value of values[begin, end) and the sum of magnitudes that bounds rounding error.
struct Reference
{
  long double value   = 0;
  long double sum_abs = 0;  // sums: the sum of magnitudes of the summed terms
  std::int64_t count  = 0;
  std::int64_t index  = -1; // argmin/argmax: first occurrence, relative to the range start
};

template <class T>
Reference reference(const std::vector<T>& values, std::int64_t begin, std::int64_t end, Op op)
{
  Reference ref;
  ref.count = end - begin;
  if (op == Op::min || op == Op::max || is_arg(op))
  {
    const bool smallest = op == Op::min || op == Op::argmin;
    Wide<T> best        = wide(identity<T>(op)); // compared widened: exact, and the same order
    for (std::int64_t i = begin; i < end; ++i)
    {
      // Strict comparison: a tie keeps the earlier element.
      const Wide<T> x = wide(values[i]);
      if (smallest ? x < best : best < x)
      {
        best      = x;
        ref.index = i - begin;
      }
    }
    if (ref.count > 0 && ref.index < 0) // every element equals the identity: the first one wins
    {
      ref.index = 0;
    }
    ref.value = static_cast<long double>(best);
    return ref;
  }
  const bool squares = op == Op::sum_squares;
  if constexpr (std::is_integral_v<T>)
  {
    // Two's-complement wrap-around in the element's width (problem.hpp): unsigned arithmetic wraps by
    // definition, and converting back gives the signed result.
    using Unsigned = std::make_unsigned_t<T>;
    Unsigned total = 0;
    for (std::int64_t i = begin; i < end; ++i)
    {
      const auto x = static_cast<Unsigned>(values[i]);
      total        = static_cast<Unsigned>(total + (squares ? static_cast<Unsigned>(x * x) : x));
    }
    ref.value = static_cast<long double>(static_cast<T>(total));
  }
  else
  {
    // Neumaier-compensated long double: far below the float and double tolerances below. Squares
    // are rounded to the accumulating type first, as the device computes them (a half's is exact in f32).
    long double sum = 0, compensation = 0;
    for (std::int64_t i = begin; i < end; ++i)
    {
      const Wide<T> w     = wide(values[i]);
      const long double x = squares ? static_cast<Wide<T>>(w * w) : w;
      const long double t = sum + x;
      compensation += (std::fabs(sum) >= std::fabs(x)) ? (sum - t) + x : (x - t) + sum;
      sum = t;
      ref.sum_abs += std::fabs(x);
    }
    ref.value = sum + compensation;
  }
  return ref;
}

// Allowed |result - reference| for a float sum: factor * u * sum|x| (u = unit roundoff of the
// accumulating type: f32's for halves), with the factor the implementation states (redu::sum_error_factor: 2 (ceil(log2 count) + 1) for a tree, plus
// one rounding per partial added in arrival order). Min, max and integer sums are exact.
template <class T>
long double tolerance(const Reference& ref, Op op, double factor)
{
  if ((op != Op::sum && op != Op::sum_squares) || std::is_integral_v<T>)
  {
    return 0;
  }
  const long double u = std::numeric_limits<Wide<T>>::epsilon() / 2;
  return factor * u * ref.sum_abs;
}

// The tree part of the stated bound, for callers with no implementation at hand.
inline double tree_factor(std::int64_t count)
{
  return count < 2 ? 0 : 2 * (std::ceil(std::log2(static_cast<double>(count))) + 1);
}

} // namespace redu::test
