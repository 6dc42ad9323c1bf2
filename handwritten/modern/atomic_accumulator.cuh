// The atomic finish's accumulator (modern lesson 2, 02_atomic_finish.cu, which teaches it), shared with
// the kernels that finish the same way (halves/02_atomic_halves.cu, precision/03_compensated_atomic.cu):
// one word in the workspace into which every block folds its value with one hardware atomic. The
// workspace starts zero-filled, so values are stored as keys whose all-zero word is the identity: sums
// as themselves (0 is their identity); min and max through the order-preserving map to unsigned integers
// (common/device/ordered_key.cuh), min as the complement so that one atomicMax serves both.
// Float sums accumulate in a double: the f32 global atomic add (red.global.add.f32) flushes subnormal
// operands and results to zero, so a float sum of subnormals came out 0; the double atomic add keeps
// subnormals and holds every float partial exactly, and the last block rounds it to float once.
#pragma once

#include "common/contract/ops.cuh"
#include "common/device/grid_ticket.cuh"
#include "common/device/ordered_key.cuh"

#include <cstring>
#include <type_traits>

namespace redu::modern
{

// Sum and sum_squares add their partials (sum_squares' partials are already squares).
template <class ReduceOp> inline constexpr bool adds = ReduceOp::id == Op::sum || ReduceOp::id == Op::sum_squares;

// The accumulator's word: 64 bits for every sum of floats (a double, see above), else the value's width.
template <class T, class ReduceOp>
using AccumulatorWord = std::conditional_t<adds<ReduceOp> && std::is_floating_point_v<T>, unsigned long long, OrderedWord<T>>;

// How a value enters the zero-initialised accumulator, and how the final word becomes a value again.
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

// Thread 0 of each block: its value into the accumulator, then the ticket. True in the last block to
// arrive, which gets the grid's total in `total`; the accumulator and the ticket are then back at zero
// for the next launch (read and zeroed in one atomicExch: no other block touches them any more).
template <class T, class ReduceOp>
__device__ __forceinline__ bool fold_into_total(AccumulatorWord<T, ReduceOp>* accumulator, unsigned* ticket, T value,
                                                T& total)
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

} // namespace redu::modern
