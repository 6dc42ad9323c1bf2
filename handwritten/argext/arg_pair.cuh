// Argmin/argmax as a pair: every thread, warp and block carries (value, index) and keeps the better of
// two pairs. The one rule (problem.hpp): the strictly more extreme value wins; equal values (repeats, or
// +0 and -0, which compare equal) go to the smaller index, and the winner's own value travels with it,
// so the zero written is the first zero's sign.
//
// Why the rule is written out in full at every step, not "keep the first on ties": with the index in
// the comparison the choice is a total order on pairs, so it is associative and commutative. Any tree,
// any grid shape and any arrival order then give the same pair: deterministic without care for order.
//
// "No element yet" is the identity value with index `none` = INT64_MAX, the largest index: an element
// equal to the identity (the max of an all -inf input) still beats it on the index, and only an empty
// range keeps it, which write_arg_result turns into the contract's index -1.
#pragma once

#include "common/contract/ops.cuh"

#include <cstdint>
#include <cuda_runtime.h>

namespace redu::argext
{

inline constexpr std::int64_t none = INT64_MAX;

template <class T> struct ArgPair
{
  T value;
  std::int64_t index; // relative to the start of the row (segment, array); `none` for no element
};

// Strictly more extreme: a > b for argmax, a < b for argmin. NaN compares false both ways, so a NaN
// never displaces a number and a number never displaces a NaN: the result with NaN depends on the
// tree, which the contract leaves unspecified.
template <class ArgOp, class T> __device__ __forceinline__ bool more_extreme(T a, T b)
{
  if constexpr (ArgOp::id == Op::argmax)
  {
    return b < a;
  }
  else
  {
    return a < b;
  }
}

// a is better than b: more extreme, or as extreme and earlier.
template <class ArgOp, class T> __device__ __forceinline__ bool better(const ArgPair<T>& a, const ArgPair<T>& b)
{
  return more_extreme<ArgOp>(a.value, b.value) || (a.value == b.value && a.index < b.index);
}

template <class ArgOp, class T> __device__ __forceinline__ ArgPair<T> best_of(const ArgPair<T>& a, const ArgPair<T>& b)
{
  return better<ArgOp>(b, a) ? b : a;
}

template <class ArgOp, class T> __device__ __forceinline__ ArgPair<T> no_element()
{
  return {ArgOp::template identity<T>(), none};
}

// The best pair of each aligned group of Group lanes (2, 4, ..., 32), in every lane of the group:
// log2(Group) butterfly steps, each two shuffles (the value, then the index) and one comparison; a lane
// mask below Group never leaves the group. In registers: 32-bit values and the 64-bit index move 1 + 2
// words per step, 64-bit values 2 + 2; arg_key64.cuh packs value and index into one 64-bit word instead.
// Every lane of the warp must call it (full-mask shuffles).
template <int Group, class ArgOp, class T> __device__ __forceinline__ ArgPair<T> group_best(ArgPair<T> p)
{
  static_assert(Group >= 1 && Group <= 32 && (Group & (Group - 1)) == 0, "a power of two up to a warp");
#pragma unroll
  for (int lane_mask = Group / 2; lane_mask > 0; lane_mask /= 2)
  {
    const ArgPair<T> other{__shfl_xor_sync(0xffffffffu, p.value, lane_mask),
                           __shfl_xor_sync(0xffffffffu, p.index, lane_mask)};
    p = best_of<ArgOp>(p, other);
  }
  return p;
}

// The warp's best pair in every lane: five butterfly steps.
template <class ArgOp, class T> __device__ __forceinline__ ArgPair<T> warp_best(ArgPair<T> p)
{
  return group_best<32, ArgOp>(p);
}

// The block's best pair, valid in thread 0: each warp's best into a shared slot, then warp 0 over the
// slots (block_reduce.cuh's shape, with pairs). Contains __syncthreads: call from all threads; two calls
// in one kernel share the slots, so a __syncthreads() must separate them.
template <int Threads, class ArgOp, class T> __device__ __forceinline__ ArgPair<T> block_best(ArgPair<T> p)
{
  static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps, at most 1024 threads");
  constexpr int warps = Threads / 32;
  p                   = warp_best<ArgOp>(p);
  if constexpr (warps > 1)
  {
    __shared__ T slot_value[warps];
    __shared__ std::int64_t slot_index[warps];
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    if (lane == 0)
    {
      slot_value[warp] = p.value;
      slot_index[warp] = p.index;
    }
    __syncthreads();
    if (warp == 0)
    {
      p = lane < warps ? ArgPair<T>{slot_value[lane], slot_index[lane]} : no_element<ArgOp, T>();
      p = warp_best<ArgOp>(p);
    }
  }
  return p;
}

// The contract's two outputs for one row: the winner's own value and its index, or the identity and -1
// for an empty row (the pair never left no_element()).
template <class T> __device__ __forceinline__ void write_arg_result(const ArgPair<T>& p, T* value, std::int64_t* index)
{
  *value = p.value;
  *index = p.index == none ? -1 : p.index;
}

} // namespace redu::argext
