// The exact sum of floating-point numbers as an integer: every float or double is an integer multiple
// of the type's smallest subnormal (2^-149 for float, 2^-1074 for double), so a sum of them is one too,
// and integers add associatively. Held in 32-bit limbs (each in a signed 64-bit word, so a limb can
// take many additions before it carries), the sum comes out with the same bits whatever the order of
// the additions: whatever the grid, the block size, the GPU, or the number of pieces the input was cut
// into, as long as the pieces' limbs are added, not their rounded results. It is rounded to the element
// type once, at the end, to nearest even: the result is the correctly rounded exact sum, error
// <= u |sum| (u = 2^-24 or 2^-53).
//
// The value of an element: x = (-1)^s * M * 2^E * unit, with unit the smallest subnormal, M the
// significand as an integer (24 or 53 bits, the implicit bit included; a subnormal's fraction as it is)
// and E = biased exponent - 1 (0 for subnormals): 0..253 for float, 0..2045 for double. Limb j weighs
// 2^(32 j) units; an element lands in limb E / 32 as M << (E % 32), less than 2^55 (float) or 2^84
// (double), which straddles two or three limbs.
//
// How many limbs: the largest element is below 2^(254+24) units for float and 2^(2046+53) for double;
// 2^63 of them add at most 63 bits. Float: ceil((278 + 63) / 32) = 11 limbs, double: ceil((2099 + 63) /
// 32) = 68, plus one whose sign is the sum's: 12 and 69.
//
// Shared by the kernel (handwritten/precision/01_exact_sum.cu) and the host tests
// (tests/exact_limbs_test.cpp): everything here is __host__ __device__ and has no side effects.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <cuda_runtime.h>
#include <type_traits>

namespace redu::precision
{

template <class T> struct ExactFormat;
template <> struct ExactFormat<float>
{
  using Bits                         = std::uint32_t;
  using Magnitude                    = long long; // one element's M << (E % 32) fits in 55 bits
  static constexpr int fraction_bits = 23;
  static constexpr int exponent_mask = 0xff;
  static constexpr int unit_exponent = -149; // the smallest subnormal is 2^-149
  static constexpr int limbs         = 12;
};
template <> struct ExactFormat<double>
{
  using Bits                         = std::uint64_t;
  using Magnitude                    = __int128; // M << (E % 32) needs up to 84 bits
  static constexpr int fraction_bits = 52;
  static constexpr int exponent_mask = 0x7ff;
  static constexpr int unit_exponent = -1074;
  static constexpr int limbs         = 69;
};

// Infinities and NaN are not integers: they are recorded as flags and decide the result alone (the
// contract: NaN anywhere gives NaN, +inf and -inf together give NaN, one infinity gives itself).
enum NonFinite : unsigned
{
  saw_nan            = 1u,
  saw_plus_infinity  = 2u,
  saw_minus_infinity = 4u
};

// One element as a term of the integer sum: limb `limb`, signed magnitude `value` (0 for zeros), or a
// non-finite flag.
template <class T> struct Term
{
  int limb                                 = 0;
  typename ExactFormat<T>::Magnitude value = 0;
  unsigned non_finite                      = 0;
};

// Branch-free (selects only): the kernel calls this for every element, and a branch per element costs
// its reconvergence instructions as well.
template <class T> __host__ __device__ __forceinline__ Term<T> term_of(T x)
{
  using F    = ExactFormat<T>;
  using Bits = typename F::Bits;
  Bits bits;
  std::memcpy(&bits, &x, sizeof(T));
  constexpr int sign_shift = 8 * sizeof(T) - 1;
  const bool negative      = (bits >> sign_shift) != 0;
  const unsigned biased    = static_cast<unsigned>((bits >> F::fraction_bits) & F::exponent_mask);
  const Bits fraction      = bits & ((Bits(1) << F::fraction_bits) - 1);
  const bool finite        = biased != F::exponent_mask;
  Term<T> t;
  t.non_finite = finite ? 0u : (fraction != 0 ? saw_nan : (negative ? saw_minus_infinity : saw_plus_infinity));
  // A subnormal (biased 0) has no implicit bit and the exponent of the smallest normal; a non-finite
  // value becomes the term 0 (its flag decides the result).
  const Bits significand  = !finite ? Bits(0) : (biased == 0 ? fraction : (fraction | (Bits(1) << F::fraction_bits)));
  const unsigned exponent = biased - (biased != 0 ? 1u : 0u);
  t.limb                  = static_cast<int>(exponent / 32);
  const typename F::Magnitude magnitude = static_cast<typename F::Magnitude>(significand) << (exponent % 32);
  t.value                               = negative ? -magnitude : magnitude;
  return t;
}

// 32-bit pieces of a signed register sum of type M: long long (two pieces) or __int128 (four).
template <class M> inline constexpr int pieces_of = sizeof(M) / 4;

// The sum cut into its pieces: the low pieces as unsigned values in [0, 2^32), the last signed; piece[k]
// belongs in limb `limb + k` of a sum that starts in limb `limb`.
template <class M> __host__ __device__ __forceinline__ void split_pieces(M value, long long (&piece)[pieces_of<M>])
{
#pragma unroll
  for (int k = 0; k < pieces_of<M> - 1; ++k)
  {
    piece[k] = static_cast<long long>(static_cast<std::uint32_t>(value));
    value >>= 32; // arithmetic: the remaining high part keeps the sign
  }
  piece[pieces_of<M> - 1] = static_cast<long long>(value);
}

// A signed register sum that belongs in limb `limb` and up, added piece by piece (`add(j, piece)`):
// adding each piece to its limb adds exactly `value`.
template <class M, class AddToLimb>
__host__ __device__ __forceinline__ void add_pieces(int limb, M value, AddToLimb&& add)
{
  long long piece[pieces_of<M>];
  split_pieces<M>(value, piece);
#pragma unroll
  for (int k = 0; k < pieces_of<M>; ++k)
  {
    add(limb + k, piece[k]);
  }
}

// A running sum of one exponent window w (biased exponent >> 4) held in a double: the exact sum of
// elements of that window (RunningSum<float>), or of the high or low parts of doubles of that window
// (RunningSum<double>), so an integer multiple of the window's smallest step. For both types that
// step is 2^base units (the unit 2^U: 2^-149 for float, 2^-1074 for double) with base = 16 w - 1 (0 for
// window 0). Returned as the limb that holds the step and the signed value in it: every sum of a window
// lands in the same limb, whatever its magnitude, so a warp's lanes usually agree and add their pieces
// across the warp first. With v = m 2^(e - 1075) = m 2^(e - 1075 - U) units (m the 53-bit significand,
// e the biased exponent; a subnormal's fraction and e = 1), the value is m shifted to the limb's start: below 2^87 for
// a float window's sum (4 pieces, float limbs <= 10) and 2^112 for a double window's (4 pieces, double limbs <= 65).
template <class T>
__host__ __device__ __forceinline__ void window_units_of(double v, int window, int& limb, __int128& value)
{
  constexpr int unit_exponent = ExactFormat<T>::unit_exponent;
  const int base              = window == 0 ? 0 : 16 * window - 1;
  limb                        = base / 32;
  value                       = 0;
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof(v));
  const int biased             = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
  // A subnormal sum (window 0 of doubles) has no implicit bit and the exponent of the smallest normal.
  std::uint64_t m = biased == 0 ? fraction : (fraction | (std::uint64_t{1} << 52));
  const int e     = biased == 0 ? 1 : biased;
  int position    = e - 1075 - unit_exponent - 32 * limb;
  if (position < 0) // the bits below the window's step are zeros: shifting them out is exact
  {
    m >>= -position;
    position = 0;
  }
  const __int128 magnitude = static_cast<__int128>(m) << position;
  value                    = (bits >> 63) != 0 ? -magnitude : magnitude;
}

// A double without the low 27 bits of its fraction: 26 significant bits. The rest, x - high_part(x), is
// exact (the 27 low bits, as a double); for subnormals too.
__host__ __device__ __forceinline__ double high_part(double x)
{
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof(x));
  bits &= ~((std::uint64_t{1} << 27) - 1);
  double high;
  std::memcpy(&high, &bits, sizeof(high));
  return high;
}

// Carries every limb but the last into the next, so limbs 0..L-2 lie in [0, 2^32) and the last carries
// the sign. Sequential: one thread, L steps.
template <class T> __host__ __device__ inline void normalize(long long* limbs)
{
  for (int j = 0; j + 1 < ExactFormat<T>::limbs; ++j)
  {
    const long long carry = limbs[j] >> 32; // floor division by 2^32
    limbs[j] -= carry * (1LL << 32);
    limbs[j + 1] += carry;
  }
}

// Balanced digits: limbs in [-2^31, 2^31] or near it, where normalize's lie in [0, 2^32). The value is the
// same, but a negative number keeps zeros above its magnitude where normalize's digits would be 2^32 - 1
// all the way up (-1 carried into every limb), and the sign of any run of digits is the sign of its
// highest non-zero one.
// The carry a limb hands up: its value's nearest multiple of 2^32 (ties upward), in units of 2^32.
__host__ __device__ __forceinline__ long long balanced_carry(long long limb)
{
  return (limb + (1LL << 31)) >> 32;
}

// One carry step, every limb at once (the GPU's warp takes a limb per lane, exact_grid_finish.cuh; this is
// its serial spelling, for the host and the tests): limb j keeps its value less its own carry and takes
// limb j - 1's, computed from the values before the step; the top limb keeps its carry. The same integer.
// From limbs below 2^63 in magnitude one step leaves every digit but the top one within 2^32 (|own rest|
// <= 2^31 plus a carry below 2^31), and a second step within [-2^31 - 1, 2^31] (carries -1, 0 or 1).
template <class T> __host__ __device__ inline void balance_step(long long* limbs)
{
  for (int j = ExactFormat<T>::limbs - 2; j >= 0; --j) // downward: limb j + 1 has already lost its own carry
  {
    const long long carry = balanced_carry(limbs[j]);
    limbs[j] -= carry * (1LL << 32);
    limbs[j + 1] += carry;
  }
}

__host__ __device__ __forceinline__ int leading_zeros(std::uint64_t x)
{
#ifdef __CUDA_ARCH__
  return __clzll(static_cast<long long>(x));
#else
  return __builtin_clzll(x);
#endif
}

// The result the non-finite flags call for (the contract: NaN anywhere gives NaN, +inf and -inf together
// give NaN, one infinity gives itself); `non_finite` must not be 0.
template <class T> __host__ __device__ inline T non_finite_result(unsigned non_finite)
{
  if ((non_finite & saw_nan) || (non_finite & saw_plus_infinity && non_finite & saw_minus_infinity))
  {
    return static_cast<T>(NAN);
  }
  return (non_finite & saw_plus_infinity) ? static_cast<T>(INFINITY) : -static_cast<T>(INFINITY);
}

// The rounding to nearest even of a non-zero integer (times the unit) given by its three highest digits,
// high (limb `top`, not 0), middle and low (limbs top - 1 and top - 2; 0 where there is no such limb), and
// the sign of everything below them (-1, 0 or 1). The digits must be balanced (two balance_steps: every
// digit below the top within 2^31 + 1 in magnitude; normalize's are not, a negative number's top digits
// being -1, 2^32 - 1, 2^32 - 1): then the lower digits add up to less than half a unit of the lowest digit
// they sit under, so the integer's sign is the window's and the rest's sign is its highest non-zero
// digit's. A rest of the other sign than the window borrows one unit from the window's magnitude and leaves
// a non-zero remainder; a rest of the same sign only sets the sticky bit.
template <class T>
__host__ __device__ inline T round_from_top(long long high, long long middle, long long low, int top, int rest_sign)
{
  constexpr int precision = ExactFormat<T>::fraction_bits + 1;
  const __int128 window   = static_cast<__int128>(high) * (static_cast<__int128>(1) << 64) +
                          static_cast<__int128>(middle) * (1LL << 32) + low;
  const bool negative         = window < 0;
  unsigned __int128 magnitude = static_cast<unsigned __int128>(negative ? -window : window);
  if (rest_sign != 0 && (rest_sign < 0) != negative)
  {
    --magnitude;
  }
  // At least 2^62 (|high| >= 1 over at most (2^31 + 1)(2^32 + 1) below it): 10 or more bits below the
  // significand, the round bit among them.
  const auto upper = static_cast<std::uint64_t>(magnitude >> 64);
  const int leading =
      upper != 0 ? 127 - leading_zeros(upper) : 63 - leading_zeros(static_cast<std::uint64_t>(magnitude));
  const int shift      = leading - (precision - 1);
  auto significand     = static_cast<std::uint64_t>(magnitude >> shift);
  const bool round_bit = ((magnitude >> (shift - 1)) & 1) != 0;
  const bool sticky    = rest_sign != 0 || (magnitude & ((static_cast<unsigned __int128>(1) << (shift - 1)) - 1)) != 0;
  int exponent         = 32 * (top - 2) + shift + ExactFormat<T>::unit_exponent; // of the significand's last bit
  if (round_bit && (sticky || (significand & 1)))
  {
    ++significand;
    if (significand == (std::uint64_t{1} << precision))
    {
      significand >>= 1;
      ++exponent;
    }
  }
  // Exact in double: a significand of at most 53 bits, scaled by a power of two. For float the
  // conversion is exact too (at most 24 bits, and below 2^-126 only multiples of 2^-149 reach here),
  // and gives infinity past the largest float, as the rounding rule says.
  const T result = static_cast<T>(::ldexp(static_cast<double>(significand), exponent));
  return negative ? -result : result;
}

// The integer in `limbs` (any carries, each limb below 2^62 in magnitude; destroyed) times the unit, rounded to T to
// nearest even, or the non-finite result the flags call for. An exact zero is +0. Serial: the host's exact
// sum (exact_host_sum.hpp); the GPU takes the same steps with a limb per lane (exact_grid_finish.cuh).
template <class T> __host__ __device__ inline T round_exact(long long* limbs, unsigned non_finite)
{
  if (non_finite != 0)
  {
    return non_finite_result<T>(non_finite);
  }
  balance_step<T>(limbs);
  balance_step<T>(limbs); // every digit below the top within 2^31 + 1
  // The highest non-zero digit at or below `limit`, or -1 (the warp's ballot, warp_highest_nonzero).
  auto highest_nonzero = [&](int limit) {
    while (limit >= 0 && limbs[limit] == 0)
    {
      --limit;
    }
    return limit;
  };
  const int top = highest_nonzero(ExactFormat<T>::limbs - 1);
  if (top < 0)
  {
    return T(0);
  }
  const int below     = highest_nonzero(top - 3); // under the three digits of the window
  auto limb_at        = [&](int j) { return j >= 0 ? limbs[j] : 0LL; };
  const int rest_sign = below < 0 ? 0 : (limbs[below] < 0 ? -1 : 1);
  return round_from_top<T>(limbs[top], limb_at(top - 1), limb_at(top - 2), top, rest_sign);
}

} // namespace redu::precision
