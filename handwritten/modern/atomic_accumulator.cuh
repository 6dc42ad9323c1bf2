// The atomic finish's accumulator (modern lesson 2, 02_atomic_finish.cu, which teaches it), shared with
// the kernels that finish the same way (halves/02_atomic_halves.cu, precision/03_compensated_atomic.cu):
// one word in the workspace into which every block folds its value with one hardware atomic. The
// workspace starts zero-filled, so values are stored as keys whose all-zero word is the identity: sums
// as themselves (0 is their identity); min and max through the order-preserving map to unsigned integers
// (common/device/ordered_key.cuh), min as the complement so that one atomicMax serves both.
// Float sums accumulate in a double: the f32 global atomic add (red.global.add.f32) flushes subnormal
// operands and results to zero, so a float sum of subnormals came out 0; the double atomic add keeps
// subnormals and holds every float partial exactly, and the last block rounds it to float once.
// Sums of 32-bit integers carry the grid ticket in the same word (counts_arrivals below): one atomic
// per block instead of an add, a ticket and the last block's read, each a round trip to the L2.
#pragma once

#include "common/contract/ops.cuh"
#include "common/device/grid_ticket.cuh"
#include "common/device/ordered_key.cuh"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace redu::modern
{

// Sum and sum_squares add their partials (sum_squares' partials are already squares).
template <class ReduceOp> inline constexpr bool adds = ReduceOp::id == Op::sum || ReduceOp::id == Op::sum_squares;

// Sums of 32-bit integers count the arrivals in their accumulator's word: its high half is the sum modulo
// 2^32 (a 32-bit integer sum's own wrap-around), its low half the blocks that have added. A block adds
// (value << 32) + 1 with one atomic that returns the word before it: the count never carries into the sum
// (a grid has fewer than 2^32 blocks), and the sum's carry out of bit 63 is the wrap-around it would have
// anyway. The block that reads count = blocks - 1 is the last, and its own atomic's return already holds
// every other block's value (one word's modification order is total), so it needs no ticket, no fence
// and no read of the word: one round trip to the L2 at the grid's end instead of three (the add's release
// before the ticket, the ticket, the winner's read). Floats cannot do this (a double's add has no spare
// bits), nor min and max (atomicMax keeps one word, it does not add the count).
template <class T, class ReduceOp>
inline constexpr bool counts_arrivals = adds<ReduceOp> && std::is_integral_v<T> && sizeof(T) == 4;

// The accumulator's word: 64 bits for every sum of floats (a double, see above) and for the sums that
// count arrivals, else the value's width.
template <class T, class ReduceOp>
using AccumulatorWord =
    std::conditional_t<(adds<ReduceOp> && std::is_floating_point_v<T>) || counts_arrivals<T, ReduceOp>,
                       unsigned long long, OrderedWord<T>>;

// How a value enters the zero-initialised accumulator, and how the final word becomes a value again
// (every accumulator but those of the sums that count arrivals, add_counting_arrivals below).
template <class T, class ReduceOp> struct Accumulator
{
  using Stored = AccumulatorWord<T, ReduceOp>;

  __device__ static void combine(Stored* word, T x)
  {
    if constexpr (adds<ReduceOp> && std::is_floating_point_v<T>)
    {
      atomicAdd(reinterpret_cast<double*>(word), static_cast<double>(x));
    }
    else if constexpr (adds<ReduceOp>)
    {
      atomicAdd(word, static_cast<Stored>(x)); // two's complement: unsigned wrap-around is the signed sum
    }
    else if constexpr (ReduceOp::id == Op::max)
    {
      atomicMax(word, ordered(x));
    }
    else
    {
      atomicMax(word, ~ordered(x));
    }
  }

  __device__ static T decode(Stored word)
  {
    if constexpr (adds<ReduceOp> && std::is_floating_point_v<T>)
    {
      double x;
      std::memcpy(&x, &word, sizeof(x));
      return static_cast<T>(x);
    }
    else if constexpr (adds<ReduceOp>)
    {
      T x;
      std::memcpy(&x, &word, sizeof(T));
      return x;
    }
    else if constexpr (ReduceOp::id == Op::max)
    {
      return from_ordered<T>(word);
    }
    else
    {
      return from_ordered<T>(~word);
    }
  }
};

// A sum that counts arrivals (counts_arrivals above): thread 0 of each block adds its value and its arrival
// in one atomic; true in the last block, whose atomic returned every other block's value, with the total in
// `total`. The word is then back at zero for the next launch.
template <class T>
__device__ __forceinline__ bool add_counting_arrivals(unsigned long long* word, T value, T& total)
{
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const unsigned long long before = atomicAdd(word, (static_cast<unsigned long long>(bits) << 32) | 1u);
  if (static_cast<std::uint32_t>(before) != gridDim.x - 1)
  {
    return false;
  }
  const std::uint32_t sum = static_cast<std::uint32_t>(before >> 32) + bits; // wraps as a 32-bit sum does
  std::memcpy(&total, &sum, sizeof(total));
  *word = 0; // every other block has added: no one reads the word again in this launch
  return true;
}

// Thread 0 of each block: its value into the accumulator, then the ticket. True in the last block to
// arrive, which gets the grid's total in `total`; the accumulator and the ticket are then back at zero
// for the next launch (read and zeroed in one atomicExch: no other block touches them any more).
// Sums that count arrivals in their word take one atomic instead and leave the ticket untouched.
template <class T, class ReduceOp>
__device__ __forceinline__ bool fold_into_total(AccumulatorWord<T, ReduceOp>* accumulator, unsigned* ticket, T value,
                                                T& total)
{
  if constexpr (counts_arrivals<T, ReduceOp>)
  {
    return add_counting_arrivals(accumulator, value, total);
  }
  else
  {
    Accumulator<T, ReduceOp>::combine(accumulator, value);
    if (!last_arrival(ticket, gridDim.x))
    {
      return false;
    }
    total   = Accumulator<T, ReduceOp>::decode(atomicExch(accumulator, AccumulatorWord<T, ReduceOp>(0)));
    *ticket = 0;
    return true;
  }
}

} // namespace redu::modern
