// Precision family, lesson 1's accumulator (01_exact_sum.cu): the pieces of the exact sum that hold its
// integer inside a block. A thread's running sum in a register (RunningSum), flushed into the block's
// limbs in shared memory when its limb changes. The grid's part (the block's limbs to the global limbs,
// the last block's rounding) is exact_grid_finish.cuh; the limb arithmetic itself is exact_limbs.cuh.
#pragma once

#include "handwritten/precision/exact_limbs.cuh"

#include <cstdint>

namespace redu::precision
{

template <class T> using Magnitude = typename ExactFormat<T>::Magnitude;

// A shared limb: 64-bit shared atomics are compare-and-swap loops (ATOMS.CAST.SPIN.64), which retry
// while other warps flush into the same limb, so the add goes to the limb's two 32-bit halves with
// native 32-bit atomics (ATOMS.ADD): the low half returns its old value, which gives the carry, and the
// high half takes the value's high word plus that carry. Every adder carries its own overflow, so once
// all have added (a __syncthreads() later) the limb holds the 64-bit sum mod 2^64, as one atomic would.
__device__ __forceinline__ void add_to_shared_limb(long long* limbs, int j, long long value)
{
  static_assert(sizeof(long long) == 2 * sizeof(unsigned), "a limb is two 32-bit halves");
  unsigned* half       = reinterpret_cast<unsigned*>(limbs + j); // little-endian: [0] low, [1] high
  const auto bits      = static_cast<unsigned long long>(value);
  const unsigned low   = static_cast<unsigned>(bits);
  const unsigned old   = atomicAdd(half, low);
  const unsigned carry = old + low < old ? 1u : 0u;
  const unsigned high  = static_cast<unsigned>(bits >> 32) + carry;
  if (high != 0)
  {
    atomicAdd(half + 1, high);
  }
}

// Rare on ordinary data, so kept out of line: the hot path stays a few registers wide. A free function
// taking values, not a member: a call that takes the running sum's address puts the running sum in local
// memory, and every element then loads and stores it there (the machine code of the first version did:
// one STL/LDL pair per element, which made that kernel 3-5x slower than the plain sum).
template <class M> __device__ __noinline__ void add_to_block(int limb, M value, long long* block_limbs)
{
  add_pieces<M>(limb, value, [&](int j, long long v) {
    if (v != 0) // no shared atomic for nothing
    {
      add_to_shared_limb(block_limbs, j, v);
    }
  });
}

// Every lane of the warp calls this together with its (limb, value). When the whole warp's values
// start in one limb (ordinary data), their 32-bit pieces are added across the lanes first and one lane
// adds them to shared memory: 2-4 shared atomics per warp instead of 64-128.
template <class M> __device__ __forceinline__ void warp_add_to_block(int limb, M value, long long* block_limbs)
{
  constexpr int pieces = pieces_of<M>;
  if (__match_any_sync(0xffffffffu, limb) != 0xffffffffu)
  {
    add_to_block<M>(limb, value, block_limbs);
    return;
  }
  long long piece[pieces];
  split_pieces<M>(value, piece);
#pragma unroll
  for (int k = 0; k < pieces; ++k)
  {
    for (int offset = 16; offset > 0; offset /= 2) // 32 pieces below 2^32 each: below 2^37
    {
      piece[k] += __shfl_xor_sync(0xffffffffu, piece[k], offset);
    }
  }
  if (threadIdx.x % 32 == 0)
  {
#pragma unroll
    for (int k = 0; k < pieces; ++k)
    {
      if (piece[k] != 0)
      {
        add_to_shared_limb(block_limbs, limb + k, piece[k]);
      }
    }
  }
}

// A running sum's flush into the block's limbs: the whole warp together (flush_warp: every
// tiles_per_flush tiles and at the end, where a warp's lanes usually share a limb) or one thread alone
// (its window changed).
template <class M>
__device__ __forceinline__ void flush_to_block(bool whole_warp, int limb, M value, long long* block_limbs)
{
  if (whole_warp)
  {
    warp_add_to_block<M>(limb, value, block_limbs);
  }
  else
  {
    add_to_block<M>(limb, value, block_limbs);
  }
}

// One thread's running sum, per element type: the exact sum of its elements since the last flush, held
// in registers, and the flushes into the block's limbs (the general integer form, a term per element as
// term_of spells it, is the host's exact sum, exact_host_sum.hpp; ~60 instructions per double).
template <class T> struct RunningSum;

// A float running sum needs no integer arithmetic per element: a double holds it exactly.
// Floats whose biased exponents share a window of 16 (e >> 4) are multiples of the window's smallest
// step, 2^(16 w - 150) (2^-149 in window 0), and below 2^(16 w - 111): 39 bits apart (38 in window 0).
// A double carries 53, so 2^14 of them add up exactly in any order. Per element: a conversion, the
// window (shift, mask), a compare and one double add, 9 instructions instead of ~28 for the integer
// term (the machine code of term_of). The sum goes to the integer limbs only when the window changes,
// every 2^14 terms, and at the end, in the window's limb (window_units_of). In the tile loop a whole
// warp's sums share it on ordinary data, and its lanes add their pieces across the warp before one lane
// adds them to shared memory (shared atomics on one address serialise: 32 lanes on one limb would wait
// in turn). At the end each lane adds its own: the warp combine's match and shuffles cost more there
// than the waiting, at small n most; lane flushes in the loop too made large inputs 2.5x slower
// (DESIGN.md).
// An infinity or NaN adds into the double as IEEE says (NaN anywhere, or +inf with -inf, gives NaN), and
// the flush turns a non-finite sum into the contract's flags.
template <> struct RunningSum<float>
{
  static constexpr std::int64_t terms_per_flush = std::int64_t{1} << 14;
  int window                                    = 0;
  double sum                                    = 0;
  unsigned non_finite                           = 0;

  __device__ __forceinline__ void add(float x, long long* block_limbs)
  {
    const int w = static_cast<int>((__float_as_uint(x) >> 27) & 0xf); // biased exponent >> 4
    if (w != window && x != 0.0f)                                     // zeros fit every window
    {
      if (sum != 0) // a thread's first element, or a window left with an exact zero: nothing to add
      {
        flush(block_limbs, false);
      }
      window = w;
    }
    sum += static_cast<double>(x);
  }

  // In the tile loop, where every lane flushes together: the warp adds its pieces across lanes first.
  __device__ __forceinline__ void flush_warp(long long* block_limbs) { flush(block_limbs, true); }
  // After the loop: each lane alone (see the comment on 'the end' above).
  __device__ __forceinline__ void flush_lane(long long* block_limbs) { flush(block_limbs, false); }

private:
  __device__ __forceinline__ void flush(long long* block_limbs, bool whole_warp)
  {
    int limb            = 0;
    Magnitude<double> v = 0;
    if (isfinite(sum))
    {
      window_units_of<float>(sum, window, limb, v);
    }
    else
    {
      non_finite |= isnan(sum) ? saw_nan : (sum > 0 ? saw_plus_infinity : saw_minus_infinity);
    }
    flush_to_block<Magnitude<double>>(whole_warp, limb, v, block_limbs);
    sum = 0;
  }
};

// A double's running sum without integer arithmetic per element: two doubles per exponent window.
// A double of window w (biased exponent >> 4) is cut into its high part (26 significant bits,
// high_part) and the rest (27 bits), both exact. High parts of the window are multiples of 2^(base + 27)
// units and below 2^(base + 68): 41 bits, so 2^12 of them add exactly in a double; the rests are
// multiples of 2^base units and below 2^(base + 42): 2^11 of them. Per element: the window (shift,
// mask), a compare, a mask, and three double adds, ~11 instructions instead of ~60 for the 128-bit
// term. The sums go to the limbs (window_units_of) when the window changes, every 2^11 terms, and at the
// end. Window 127 (2^1009 and up, infinities, NaN) never becomes the running window: each of its
// elements goes to the block's limbs alone, as a term (and infinities and NaN as flags).
template <> struct RunningSum<double>
{
  static constexpr std::int64_t terms_per_flush = std::int64_t{1} << 11;
  static constexpr int alone_window             = 127;
  int window                                    = 0;
  double high                                   = 0;
  double low                                    = 0;
  unsigned non_finite                           = 0;

  __device__ __forceinline__ void add(double x, long long* block_limbs)
  {
    const int w = static_cast<int>((__double_as_longlong(x) >> 56) & 0x7f); // biased exponent >> 4
    if (w != window && x != 0.0)                                            // zeros fit every window
    {
      if (w == alone_window)
      {
        non_finite |= add_alone(x, block_limbs);
        return;
      }
      if (high != 0 || low != 0)
      {
        flush(block_limbs, false);
      }
      window = w;
    }
    const double h = high_part(x);
    high += h;
    low += x - h;
  }

  // In the tile loop, where every lane flushes together: the warp adds its pieces across lanes first.
  __device__ __forceinline__ void flush_warp(long long* block_limbs) { flush(block_limbs, true); }
  // After the loop: each lane alone (see the comment on 'the end' above).
  __device__ __forceinline__ void flush_lane(long long* block_limbs) { flush(block_limbs, false); }

private:
  // Out of line and static (no `this`: a member call would put the running sums in local memory, as
  // add_to_block's comment says). Returns the element's non-finite flag.
  __device__ static __noinline__ unsigned add_alone(double x, long long* block_limbs)
  {
    const Term<double> t = term_of(x);
    add_to_block<Magnitude<double>>(t.limb, t.value, block_limbs);
    return t.non_finite;
  }

  __device__ __forceinline__ void flush(long long* block_limbs, bool whole_warp)
  {
    int limb                    = 0;
    Magnitude<double> from_high = 0;
    Magnitude<double> from_low  = 0;
    window_units_of<double>(high, window, limb, from_high);
    window_units_of<double>(low, window, limb, from_low); // the same limb: the window's
    const Magnitude<double> v = from_high + from_low;     // each below 2^112
    flush_to_block<Magnitude<double>>(whole_warp, limb, v, block_limbs);
    high = 0;
    low  = 0;
  }
};

} // namespace redu::precision
