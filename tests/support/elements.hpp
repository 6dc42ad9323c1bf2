// The harness's host view of the element types: bf16 and f16 (halves) beside the built-in ones. Halves
// are stored as CUDA's __nv_bfloat16 / __half, but every value the harness computes with is widened
// first (exact: a half is an f32 value), so the reference never relies on half arithmetic.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace redu::test
{

template <class T>
inline constexpr bool is_half = std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>;

// Floating types, halves included: NaN, infinities, rounding.
template <class T>
inline constexpr bool is_float_element = std::is_floating_point_v<T> || is_half<T>;

// The type the harness computes a T in, and a sum of T accumulates in (output_dtype in
// common/contract/problem.hpp): float for halves, T itself otherwise.
template <class T>
using Wide = std::conditional_t<is_half<T>, float, T>;

template <class T>
Wide<T> wide(T x)
{
  return static_cast<Wide<T>>(x);
}

// The nearest T (round to nearest even, as the conversions on the device).
template <class T, class From>
T narrow(From x)
{
  if constexpr (is_half<T>)
  {
    return T(static_cast<float>(x));
  }
  else
  {
    return static_cast<T>(x);
  }
}

// std::numeric_limits for the built-in types; for halves the members the harness uses.
template <class T>
struct Limits : std::numeric_limits<T>
{};

template <class T>
struct HalfLimits
{
  using Raw = std::conditional_t<std::is_same_v<T, __half>, __half_raw, __nv_bfloat16_raw>;
  static constexpr bool bf16        = std::is_same_v<T, __nv_bfloat16>;
  static constexpr bool has_infinity = true;
  static constexpr int digits       = bf16 ? 8 : 11; // significant bits, the implicit one included

  static T from_bits(unsigned short bits)
  {
    Raw raw{};
    raw.x = bits;
    return T(raw);
  }
  static T infinity() { return from_bits(bf16 ? 0x7F80 : 0x7C00); }
  static T quiet_NaN() { return from_bits(bf16 ? 0x7FC0 : 0x7E00); }
  static T max() { return from_bits(bf16 ? 0x7F7F : 0x7BFF); } // 3.39e38, 65504
  static T lowest() { return from_bits(bf16 ? 0xFF7F : 0xFBFF); }
  static T denorm_min() { return from_bits(0x0001); } // 2^-133, 2^-24
};

template <>
struct Limits<__nv_bfloat16> : HalfLimits<__nv_bfloat16>
{};
template <>
struct Limits<__half> : HalfLimits<__half>
{};

// |x| in T (fabs of a half, through its exact float).
template <class T>
T magnitude(T x)
{
  if constexpr (is_half<T>)
  {
    return narrow<T>(std::fabs(wide(x)));
  }
  else
  {
    return static_cast<T>(std::fabs(x));
  }
}

} // namespace redu::test
