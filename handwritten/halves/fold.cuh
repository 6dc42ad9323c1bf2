// One thread's share of a half array, folded in float: range_fold.cuh's tiles and ranges (common/device/), with
// eight halves per 16-byte pack widened on the way in.
//
// Napkin: 2 bytes per element, so 8 halves per 16-byte load against 4 floats. A reduction is limited by
// bytes read, not by elements, so at the same bytes per second as an f32 sum it reduces twice the
// elements per second. The arithmetic stays far below the memory's pace: at peak an H100 SM receives
// 3352 GB/s / 132 SMs / 1.755 GHz = ~14.5 bytes, under one pack, per clock, and a pack costs a thread
// ~4 pair conversions and 7 float operations (an f32 pack: 4), ~15 lane-operations per clock out of
// the SM's 128.
#pragma once

#include "common/device/range_fold.cuh"
#include "common/device/tiled_input.cuh"
#include "handwritten/halves/widen.cuh"

#include <cstdint>
#include <type_traits>

namespace redu::halves
{

// As fold_tiles: block `block` owns the contiguous tiles [block x tiles_per_block, + tiles_per_block) of
// Threads x Unroll packs; thread t loads packs t, t + Threads, ... into Unroll float accumulators; block 0
// takes the unaligned head (up to 7 halves) and the tail (up to 7). The order depends only on (n, the
// address modulo 16, tiles_per_block): a fixed tree for a fixed launch shape.
template <int Threads, int Unroll, class Load, class T, class ReduceOp>
__device__ __forceinline__ float fold_half_tiles(const T* in, std::int64_t n, std::int64_t block,
                                                 std::int64_t tiles_per_block, const Load& load, ReduceOp op)
{
  using P                     = Pack<T>;
  constexpr std::int64_t tile = static_cast<std::int64_t>(Threads) * Unroll;
  const TiledInput<T> input(in, n);
  const P* body                 = input.body;
  const std::int64_t packs      = input.packs;
  const std::int64_t first      = block * tiles_per_block;
  const std::int64_t end        = min(first + tiles_per_block, input.tiles(tile));
  const int tid                 = threadIdx.x;

  float acc[Unroll];
#pragma unroll
  for (int u = 0; u < Unroll; ++u)
  {
    acc[u] = ReduceOp::template identity<float>();
  }
  if (block == 0 && tid < input.head)
  {
    acc[0] = op(acc[0], leaf_of<ReduceOp>(load.scalar(in + tid)));
  }
  if (block == 0 && tid < input.tail_count)
  {
    acc[Unroll - 1] = op(acc[Unroll - 1], leaf_of<ReduceOp>(load.scalar(input.tail + tid)));
  }

  fold_tile_run<Threads>(body, packs, first, end, load, acc,
                         [op](float a, P v) { return op(a, fold_pack8(v, op)); });

#pragma unroll
  for (int u = 1; u < Unroll; ++u)
  {
    acc[0] = op(acc[0], acc[u]);
  }
  return acc[0];
}

// A lane's running value in fold_half_range: double for sums, float for min/max (exact in either).
// Segments are grouped by their average length, so one lane may fold a whole segment far longer than
// the rest (a million empty segments, then one of 2^20 halves: a chain of 2^17 pack sums). A float
// chain of k additions can lose k roundings, far beyond the tree's bound, 2 (log2 n + 1) u sum|x|
// (common/contract/problem.hpp). In double an addition costs 2^-29 of a float rounding, so the lane's
// result is its packs' float sums rounded once to float. The price: a conversion and a double add per
// 16-byte pack, which even a GPU with 1/64-rate fp64 issues faster than its memory delivers packs.
template <class ReduceOp>
using LaneSum = std::conditional_t<ReduceOp::id == Op::sum || ReduceOp::id == Op::sum_squares, double, float>;

// As fold_range (range_fold.cuh), in float: a group of Group threads folds in[begin, end) of a half
// array, `rank` being this thread's place in the group. Thread `rank` takes the head and tail halves
// rank, rank + Group, ... and the packs rank + u x Group of each round of Group x Unroll packs, all of
// a round's loads issued before the first is widened. The order depends only on the range, its address
// and the group size; the caller combines the group's partials.
template <int Group, int Unroll, class Load, class T, class ReduceOp>
__device__ __forceinline__ float fold_half_range(const T* __restrict__ in, std::int64_t begin, std::int64_t end,
                                                 int rank, const Load& load, ReduceOp op)
{
  using P                        = Pack<T>;
  using Lane                     = LaneSum<ReduceOp>;
  const auto [body, packs, tail] = cut_range(in, begin, end);
  Lane partial                   = ReduceOp::template identity<Lane>();

  for (std::int64_t i = begin + rank; i < body; i += Group)
  {
    partial = op(partial, Lane(leaf_of<ReduceOp>(load.scalar(in + i))));
  }
  const P* v     = reinterpret_cast<const P*>(in + body);
  std::int64_t k = rank;
  for (; k + (Unroll - 1) * Group < packs; k += Unroll * Group)
  {
    P x[Unroll];
    load_packs<Group>(v + k, load, x);
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
    {
      partial = op(partial, Lane(fold_pack8(x[u], op)));
    }
  }
  if (k < packs) // fewer than Unroll packs left for this thread: one predicated round
  {
    fold_partial_round<Group, Unroll>(
        v, k, packs, load, [&partial, op](int, const P& x) { partial = op(partial, Lane(fold_pack8(x, op))); });
  }
  for (std::int64_t i = tail + rank; i < end; i += Group)
  {
    partial = op(partial, Lane(leaf_of<ReduceOp>(load.scalar(in + i))));
  }
  return static_cast<float>(partial);
}

} // namespace redu::halves
