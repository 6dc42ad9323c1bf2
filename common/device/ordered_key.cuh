// The order-preserving key of a value: an unsigned integer of the same width whose unsigned order is the
// value's order, so one integer instruction (atomicMax, a warp max, a 64-bit compare) orders values of any
// type. Integers flip the sign bit (two's complement -> offset binary); floats flip the sign bit of
// positives and every bit of negatives (sign-magnitude -> offset binary, negatives reversed). Shared by
// the atomic finish of min/max (handwritten/modern/02_atomic_finish.cu) and the 64-bit (value, index) key
// of argmin/argmax (handwritten/argext/arg_pair.cuh).
#pragma once

#include <cstring>
#include <cuda_runtime.h>
#include <type_traits>

namespace redu
{

template <class T> using OrderedWord = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;

template <class T> inline constexpr OrderedWord<T> ordered_sign_bit = OrderedWord<T>(1) << (8 * sizeof(T) - 1);

// a < b exactly when ordered(a) < ordered(b) (unsigned); the all-zero key lies below every key of a
// non-NaN value. -0 and +0 get different keys (-0 just below +0): callers that need them equal say so
// (canonical_zero below). NaN is outside the order: its key lies beyond the infinity of its sign.
template <class T> __host__ __device__ __forceinline__ OrderedWord<T> ordered(T x)
{
  OrderedWord<T> bits;
  std::memcpy(&bits, &x, sizeof(T));
  if constexpr (std::is_integral_v<T>)
  {
    return bits ^ ordered_sign_bit<T>;
  }
  else
  {
    return (bits & ordered_sign_bit<T>) ? ~bits : (bits | ordered_sign_bit<T>);
  }
}

template <class T> __host__ __device__ __forceinline__ T from_ordered(OrderedWord<T> key)
{
  OrderedWord<T> bits;
  if constexpr (std::is_integral_v<T>)
  {
    bits = key ^ ordered_sign_bit<T>;
  }
  else
  {
    bits = (key & ordered_sign_bit<T>) ? (key ^ ordered_sign_bit<T>) : ~key;
  }
  T x;
  std::memcpy(&x, &bits, sizeof(T));
  return x;
}

// -0 as +0, everything else as itself: the contract compares the two zeros equal (problem.hpp), so a
// key that must tie them (argmin/argmax) is taken of the canonical zero. A select, not `x + 0`, so that
// no compiler flag can fold it away.
template <class T> __host__ __device__ __forceinline__ T canonical_zero(T x)
{
  if constexpr (std::is_floating_point_v<T>)
  {
    return x == T(0) ? T(0) : x;
  }
  else
  {
    return x;
  }
}

} // namespace redu
