// Folding a range for argmin/argmax with 16-byte loads: the same cut as fold_range in
// common/device/range_fold.cuh (a head of single elements up to the first 16-byte boundary, a body of
// packs, a tail), with each element's index carried beside its value. Every kernel of this family folds
// its share of the input through this one function: a warp folds a short row, a block a long row or one
// chunk of it, a block one chunk of a full array.
//
// Cost per element, f32: one pack load brings 4 values. A round's Unroll packs are folded as one tree of
// strict value comparisons (round_best: three per pack over its lanes, then Unroll - 1 across the packs,
// index offsets that are constants), and only the round's winner meets the thread's best in a full
// comparison (value, then 64-bit index; or one 64-bit key). About 3 instructions per element plus one
// full comparison per round, against a budget of ~28 at an H200's 4.8 TB/s (132 SMs x 1.98 GHz x 128
// lanes / 1.2 G floats per us): memory-bound, the pair costs no bandwidth, only issue slots the loads
// leave free. Why a tree and not one full comparison per pack: fewer instructions, and no chain of Unroll
// dependent 64-bit comparisons, between a warp's rounds of loads; measured, the pairs' full-array lesson
// took a few % less time up to 2^25 (handwritten/modern/DESIGN.md).
#pragma once

#include "common/device/range_fold.cuh"
#include "common/device/vector_load.cuh"
#include "handwritten/argext/arg_pair.cuh"

#include <cstdint>
#include <cstring>
#include <cuda_runtime.h>

namespace redu::argext
{

// The best of one pack's lanes, lane numbers relative to the pack: (0 vs 1) and (2 vs 3), then the two
// winners. Within a pack a later lane has the larger index, so a tie keeps the left operand and a strict
// comparison is the whole rule here.
template <class ArgOp, class T> __device__ __forceinline__ ArgPair<T> pack_best(const Pack<T>& pack, std::int64_t first)
{
  T lane[pack_size<T>];
  std::memcpy(lane, &pack.v, sizeof(lane)); // register moves only
  if constexpr (pack_size<T> == 4)
  {
    const bool right01 = more_extreme<ArgOp>(lane[1], lane[0]);
    const bool right23 = more_extreme<ArgOp>(lane[3], lane[2]);
    const T v01        = right01 ? lane[1] : lane[0];
    const T v23        = right23 ? lane[3] : lane[2];
    const int i01      = right01 ? 1 : 0;
    const int i23      = right23 ? 3 : 2;
    const bool right   = more_extreme<ArgOp>(v23, v01);
    return {right ? v23 : v01, first + (right ? i23 : i01)};
  }
  else
  {
    const bool right = more_extreme<ArgOp>(lane[1], lane[0]);
    return {right ? lane[1] : lane[0], first + (right ? 1 : 0)};
  }
}

// A pair accumulator for fold_range_arg: one ArgPair, the rule of arg_pair.cuh.
template <class ArgOp, class T> struct PairBest
{
  using Op        = ArgOp;
  ArgPair<T> best = no_element<ArgOp, T>();

  // One element, or the best of several at once (a pack, a round: pack_best, round_best).
  __device__ __forceinline__ void fold_pair(const ArgPair<T>& p)
  {
    best = best_of<ArgOp>(best, p);
  }
};

// The best of one round's Unroll packs, x[u] starting at index first + u x Stride x pack_size: each pack's
// best lane (pack_best), then a tree over the packs, left against right. Pack u's indices all lie below
// pack u + 1's, so a strict comparison keeps the left one on ties, the first occurrence, as in pack_best.
// The index offsets are constants: only the winner's is added to `first`.
template <class ArgOp, int Stride, int Unroll, class T>
__device__ __forceinline__ ArgPair<T> round_best(const Pack<T> (&x)[Unroll], std::int64_t first)
{
  ArgPair<T> best[Unroll];
#pragma unroll
  for (int u = 0; u < Unroll; ++u)
  {
    best[u] = pack_best<ArgOp>(x[u], static_cast<std::int64_t>(u) * Stride * pack_size<T>);
  }
#pragma unroll
  for (int width = 1; width < Unroll; width *= 2)
  {
#pragma unroll
    for (int u = 0; u + width < Unroll; u += 2 * width)
    {
      best[u] = more_extreme<ArgOp>(best[u + width].value, best[u].value) ? best[u + width] : best[u];
    }
  }
  return {best[0].value, first + best[0].index};
}

// A group of GroupSize threads folds in[begin, end) into `acc` (PairBest here, Key64Best in
// arg_key64.cuh: anything with its ArgOp as Op and fold_pair(pair)); `rank` is this thread's place in
// the group, indices are relative to `origin` (the row start). Thread `rank` takes the head and tail
// elements rank, rank + GroupSize, ... (each one pair) and the packs rank + u x GroupSize of each round
// of GroupSize x Unroll packs, all Unroll loads issued before the first is compared, the round folded by
// round_best. The caller combines the group's accumulators (warp_best, block_best, or their key
// versions).
template <int GroupSize, int Unroll, class Load, class T, class Acc>
__device__ __forceinline__ void fold_range_arg(const T* __restrict__ in, std::int64_t begin, std::int64_t end,
                                               std::int64_t origin, int rank, const Load& load, Acc& acc)
{
  using P                        = Pack<T>;
  const auto [body, packs, tail] = cut_range(in, begin, end);

  for (std::int64_t i = begin + rank; i < body; i += GroupSize)
  {
    acc.fold_pair({load.scalar(in + i), i - origin});
  }
  const P* v     = reinterpret_cast<const P*>(in + body);
  std::int64_t k = rank;
  for (; k + (Unroll - 1) * GroupSize < packs; k += Unroll * GroupSize)
  {
    P x[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
    {
      x[u] = load.vector(v + k + u * GroupSize);
    }
    acc.fold_pair(round_best<typename Acc::Op, GroupSize>(x, body - origin + k * pack_size<T>));
  }
  if (k < packs) // fewer than Unroll packs left for this thread: one predicated round, pack by pack
  {
    fold_partial_round<GroupSize, Unroll>(v, k, packs, load, [&acc, k, first = body - origin](int u, const P& x) {
      acc.fold_pair(pack_best<typename Acc::Op>(x, first + (k + u * GroupSize) * pack_size<T>));
    });
  }
  for (std::int64_t i = tail + rank; i < end; i += GroupSize)
  {
    acc.fold_pair({load.scalar(in + i), i - origin});
  }
}

// The pair version: this thread's best pair of in[begin, end), to be combined by warp_best/block_best.
template <int GroupSize, int Unroll, class ArgOp, class Load, class T>
__device__ __forceinline__ ArgPair<T> fold_range_pair(const T* __restrict__ in, std::int64_t begin, std::int64_t end,
                                                      std::int64_t origin, int rank, const Load& load)
{
  PairBest<ArgOp, T> acc;
  fold_range_arg<GroupSize, Unroll>(in, begin, end, origin, rank, load, acc);
  return acc.best;
}

} // namespace redu::argext
