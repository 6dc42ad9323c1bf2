// Argmin/argmax as one 64-bit key: the pair (value, index) of a 32-bit type packed so that a single
// unsigned max picks the winner by the contract's whole rule.
//
//   key = ordered(value) << 32 | ~index        (argmax)
//   key = ~ordered(value) << 32 | ~index       (argmin: the complemented key, so max still serves)
//
// The high word orders the values (ordered_key.cuh); on equal values the low word decides, and the
// complemented index makes the smaller index the larger word: first occurrence wins. One comparison of
// two 64-bit words per step, so the warp step is one 64-bit shuffle (2 x 32 bits) and one max instead
// of the pair's value and index shuffles and two-part comparison; and the whole grid can fold into one
// word with one atomicMax per block (02_key64_atomic.cu).
//
// Two contract points the map must respect:
//  - +0 and -0 compare equal, so the key is taken of the canonical zero (canonical_zero: -0 as +0); the
//    key no longer tells which zero won, so a zero result is re-read from the input at the winning
//    index: the element's own value, sign included (any other value is decoded from the key).
//  - The zero word must lie below every real key, because it is the workspace's "nothing yet". The
//    lowest value key is 0 (INT_MIN for argmax, INT_MAX for argmin), so it is the index word that keeps
//    a real key nonzero: ~index != 0 for every index below 2^32 - 1. Inputs are limited to
//    n <= 2^32 - 1 elements (max_n), which also makes every index fit its 32 bits.
// Only 32-bit types: a 64-bit value leaves no room for the index.
#pragma once

#include "common/contract/ops.cuh"
#include "common/contract/typed_reduction.cuh"
#include "common/device/ordered_key.cuh"
#include "common/device/vector_load.cuh"
#include "handwritten/argext/arg_fold.cuh"

#include <cstdint>
#include <cuda_runtime.h>
#include <type_traits>

namespace redu::argext
{

inline constexpr std::int64_t key64_max_n = (std::int64_t{1} << 32) - 1;

// The types whose (value, index) fits one key: lesson 2 registers these, the rows lesson splits them by key.
using Key64Types = TypeList<std::int32_t, float>;
template <class T> inline constexpr bool has_key64 = listed<T>(Key64Types{});

// The high word as ArgOp orders it: the ordered value for argmax, its complement for argmin (so that
// the max of keys is the smallest value). The map is its own inverse: key64 and key64_value both use it.
template <class ArgOp> __device__ __forceinline__ unsigned int oriented(unsigned int high)
{
  return ArgOp::id == Op::argmin ? ~high : high;
}

template <class ArgOp, class T> __device__ __forceinline__ unsigned long long key64(T value, std::int64_t index)
{
  static_assert(sizeof(T) == 4, "the value takes the high 32 bits");
  const unsigned int high = oriented<ArgOp>(ordered(canonical_zero(value)));
  const unsigned int low = ~static_cast<unsigned int>(index);
  return (static_cast<unsigned long long>(high) << 32) | low;
}

// The winning index of a nonzero key.
__device__ __forceinline__ std::int64_t key64_index(unsigned long long key)
{
  return static_cast<std::int64_t>(~static_cast<unsigned int>(key));
}

// The value a key was made of (the canonical zero for either zero).
template <class ArgOp, class T> __device__ __forceinline__ T key64_value(unsigned long long key)
{
  return from_ordered<T>(oriented<ArgOp>(static_cast<unsigned int>(key >> 32)));
}

// The result of a finished key: identity and -1 for 0 (nothing folded), else the winning index and its
// value, decoded from the key (`first` is where index 0 lies). Only a float zero is re-read from the
// input: the key holds the canonical zero, the output wants the element's own sign. So the finishing
// block's chain (atomicExch, then a load from the input, then the stores) loses its dependent load
// except for a zero maximum: about one memory latency less. Lesson 2 writes its array's result with it,
// the rows lesson its split rows'.
template <class ArgOp, class T>
__device__ __forceinline__ void write_key64_result(unsigned long long key, const T* first, T* value,
                                                   std::int64_t* index)
{
  if (key == 0)
  {
    *value = ArgOp::template identity<T>();
    *index = -1;
    return;
  }
  const std::int64_t i = key64_index(key);
  T v                  = key64_value<ArgOp, T>(key);
  if constexpr (std::is_floating_point_v<T>)
  {
    v = v == T(0) ? first[i] : v; // +0 or -0: the element's own
  }
  *value = v;
  *index = i;
}

// The key accumulator for fold_range_arg (arg_fold.cuh): 0 is "nothing yet".
template <class ArgOp, class T> struct Key64Best
{
  using Op                = ArgOp;
  unsigned long long best = 0;

  // One element, or the winner of a pack or a round (pack_best, round_best in arg_fold.cuh: plain value
  // comparisons), then one key and one 64-bit max for all of it. Per round of 8 f32 packs: 31 compare-and-selects,
  // one key and one max, against eight keys and eight dependent maxima. The choice is the same: values
  // that compare equal (+0, -0) get equal keys, so the smaller index won either way.
  __device__ __forceinline__ void fold_pair(const ArgPair<T>& p)
  {
    const unsigned long long k = key64<ArgOp>(p.value, p.index);
    best                       = k > best ? k : best;
  }
};

// The warp's largest key in every lane: five butterfly steps of one 64-bit shuffle and one max.
__device__ __forceinline__ unsigned long long warp_max_key(unsigned long long key)
{
#pragma unroll
  for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2)
  {
    const unsigned long long other = __shfl_xor_sync(0xffffffffu, key, lane_mask);
    key                            = other > key ? other : key;
  }
  return key;
}

// The block's largest key, valid in thread 0. Contains __syncthreads: call from all threads.
template <int Threads> __device__ __forceinline__ unsigned long long block_max_key(unsigned long long key)
{
  constexpr int warps = Threads / 32;
  key                 = warp_max_key(key);
  if constexpr (warps > 1)
  {
    __shared__ unsigned long long slot[warps];
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    if (lane == 0)
    {
      slot[warp] = key;
    }
    __syncthreads();
    if (warp == 0)
    {
      key = warp_max_key(lane < warps ? slot[lane] : 0ull);
    }
  }
  return key;
}

} // namespace redu::argext
