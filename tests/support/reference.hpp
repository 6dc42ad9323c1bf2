// The harness's independent side: input generation, a double-precision / exact CPU reference, and the
// tolerance a float result must meet. Nothing here shares code with the implementations under test.
#pragma once

#include "common/problem.hpp"

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
  }
  return f(double{});
}

template <class T>
constexpr DType dtype_of_value()
{
  if constexpr (std::is_same_v<T, std::int32_t>)
  {
    return DType::i32;
  }
  else if constexpr (std::is_same_v<T, std::int64_t>)
  {
    return DType::i64;
  }
  else if constexpr (std::is_same_v<T, float>)
  {
    return DType::f32;
  }
  else
  {
    return DType::f64;
  }
}

// Fresh random data. Integers for sums stay in a range whose every partial sum is exact and fits
// (|x| <= 100 for int32 keeps 2^24 elements under 2^31; |x| <= 10 for int32 sums of squares); min/max
// draw from a wide range. argmin/argmax draw from a few dozen values so that ties are everywhere and
// "first occurrence" is really tested. Floats have mixed sign and magnitudes spread over 2^-3 .. 2^3.
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
  if constexpr (std::is_integral_v<T>)
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

template <class T>
T identity(Op op)
{
  switch (op)
  {
    case Op::sum:
    case Op::sum_squares:
      return T(0);
    case Op::min:
    case Op::argmin:
      return std::numeric_limits<T>::max();
    default:
      return std::numeric_limits<T>::lowest();
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
    T best              = identity<T>(op);
    for (std::int64_t i = begin; i < end; ++i)
    {
      // Strict comparison: a tie keeps the earlier element.
      if (smallest ? values[i] < best : best < values[i])
      {
        best      = values[i];
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
    std::int64_t total = 0; // exact: the generator keeps every partial sum in range
    for (std::int64_t i = begin; i < end; ++i)
    {
      const std::int64_t term = squares ? std::int64_t{values[i]} * values[i] : values[i];
      total += term;
      ref.sum_abs += std::fabs(static_cast<long double>(term));
    }
    ref.value = static_cast<long double>(total);
  }
  else
  {
    // Neumaier-compensated long double: far below the float and double tolerances below. Squares
    // are rounded to T first, as the device computes them.
    long double sum = 0, compensation = 0;
    for (std::int64_t i = begin; i < end; ++i)
    {
      const long double x = squares ? static_cast<T>(values[i] * values[i]) : values[i];
      const long double t = sum + x;
      compensation += (std::fabs(sum) >= std::fabs(x)) ? (sum - t) + x : (x - t) + sum;
      sum = t;
      ref.sum_abs += std::fabs(x);
    }
    ref.value = sum + compensation;
  }
  return ref;
}

// Allowed |result - reference| for a float sum of `count` terms. A summation tree of depth d has the
// first-order error bound d * u * sum|x| (u = unit roundoff). GPU reductions are trees of depth
// ceil(log2 n) whose leaves are short per-thread chains; with mixed-sign data those chains' partial
// sums stay small, so twice the balanced-tree depth covers every implementation here. Min, max and
// integer sums are exact.
template <class T>
long double tolerance(const Reference& ref, Op op)
{
  if ((op != Op::sum && op != Op::sum_squares) || std::is_integral_v<T> || ref.count < 2)
  {
    return 0;
  }
  const long double u     = std::numeric_limits<T>::epsilon() / 2;
  const long double depth = std::ceil(std::log2(static_cast<long double>(ref.count))) + 1;
  return 2 * depth * u * ref.sum_abs;
}

} // namespace redu::test
