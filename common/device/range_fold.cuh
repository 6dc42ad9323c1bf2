// Folding a range of an array with 16-byte loads: the range is cut at 16-byte boundaries into a head of
// single elements, a body of packs and a tail, and each thread keeps Unroll pack loads in flight before
// it folds any. Two mappings: a group of threads folds one whole range (a segment), or the blocks of a
// grid fold contiguous runs of tiles of one array.
#pragma once

#include "common/device/block_reduce.cuh"
#include "common/device/vector_load.cuh"

#include <cstdint>
#include <cuda_runtime.h>

namespace redu
{

// Unroll loads of the packs p[0], p[Stride], ..., all issued before the first is used: Unroll x 16 bytes
// in flight per thread, so latency is covered by this thread's own loads and not only by occupancy.
template <int Stride, int Unroll, class Load, class T>
__device__ __forceinline__ void load_packs(const Pack<T>* p, const Load& load, Pack<T> (&v)[Unroll])
{
#pragma unroll
  for (int u = 0; u < Unroll; ++u)
  {
    v[u] = load.vector(p + u * Stride);
  }
}

// The last, partial round of a thread whose packs k, k + Stride, ..., k + (Unroll - 1) x Stride of `p`
// do not all lie below `packs`: the ones that do are loaded, all before the first is used (as in
// load_packs), then fold(u, pack) takes the u-th. Shared by the tile loop below and the argext family's
// pair fold, whose accumulators differ.
template <int Stride, int Unroll, class Load, class T, class Fold>
__device__ __forceinline__ void fold_partial_round(const Pack<T>* p, std::int64_t k, std::int64_t packs,
                                                   const Load& load, Fold fold)
{
  Pack<T> v[Unroll];
#pragma unroll
  for (int u = 0; u < Unroll; ++u)
  {
    if (k + u * Stride < packs)
    {
      v[u] = load.vector(p + k + u * Stride);
    }
  }
#pragma unroll
  for (int u = 0; u < Unroll; ++u)
  {
    if (k + u * Stride < packs)
    {
      fold(u, v[u]);
    }
  }
}

// in[begin, end) cut at 16-byte boundaries: elements [begin, body) before the first aligned address (at
// most 16 / sizeof(T) - 1 of them), `packs` whole packs from `body`, and elements [tail, end) after them.
// The same cut as fold_tiles' TiledInput, spelled in signed index arithmetic for a range of a larger
// array: a shared spelling moved the register allocation of one family's kernels or the other's, so
// each keeps the one it was tuned with. Used by every range fold (fold_range here, argext's
// fold_range_arg).
struct RangeCut
{
  std::int64_t body;
  std::int64_t packs;
  std::int64_t tail;
};

template <class T> __device__ __forceinline__ RangeCut cut_range(const T* in, std::int64_t begin, std::int64_t end)
{
  const auto misaligned = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(in + begin) % 16);
  std::int64_t head     = misaligned == 0 ? 0 : (16 - misaligned) / static_cast<std::int64_t>(sizeof(T));
  head                  = head < end - begin ? head : end - begin;
  RangeCut cut;
  cut.body  = begin + head;
  cut.packs = (end - cut.body) / pack_size<T>;
  cut.tail  = cut.body + cut.packs * pack_size<T>;
  return cut;
}

// A group of GroupSize threads folds in[begin, end); `rank` is this thread's place in the group, in
// [0, GroupSize). Thread `rank` takes the head and tail elements rank, rank + GroupSize, ... and the
// packs rank + u x GroupSize of each round of GroupSize x Unroll packs, into one accumulator; a last
// partial round loads what is left and folds the identity for the rest. Returns this thread's partial:
// the caller combines the group's. The order depends only on the range, its address and the group size.
template <int GroupSize, int Unroll, class Load, class T, class ReduceOp>
__device__ __forceinline__ T fold_range(const T* __restrict__ in, std::int64_t begin, std::int64_t end, int rank,
                                        const Load& load, ReduceOp op)
{
  using P                        = Pack<T>;
  const T identity               = ReduceOp::template identity<T>();
  const auto [body, packs, tail] = cut_range(in, begin, end);
  T partial                      = identity;

  for (std::int64_t i = begin + rank; i < body; i += GroupSize)
  {
    partial = op(partial, load.scalar(in + i));
  }
  const P* v     = reinterpret_cast<const P*>(in + body);
  std::int64_t k = rank;
  for (; k + (Unroll - 1) * GroupSize < packs; k += Unroll * GroupSize)
  {
    P x[Unroll];
    load_packs<GroupSize>(v + k, load, x);
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
    {
      partial = op(partial, fold_pack(x[u], op));
    }
  }
  if (k < packs) // fewer than Unroll packs left for this thread: one predicated round
  {
    P x[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
    {
      x[u] = k + u * GroupSize < packs ? load.vector(v + k + u * GroupSize) : splat(identity);
    }
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
    {
      partial = op(partial, fold_pack(x[u], op));
    }
  }
  for (std::int64_t i = tail + rank; i < end; i += GroupSize)
  {
    partial = op(partial, load.scalar(in + i));
  }
  return partial;
}

// The tile loop of fold_tiles (and of its variants for other accumulators, such as halves' float one):
// this thread's packs of the tiles [first, end) of `body`, `packs` packs long. Full tiles first, then,
// if this block owns it, the partial last tile with the same loads, predicated. Thread t takes packs t,
// t + Threads, ... of a tile, and step(acc[u], pack) folds the u-th into the u-th accumulator, so no
// fold waits on another.
template <int Threads, int Unroll, class Load, class T, class Acc, class Step>
__device__ __forceinline__ void fold_tile_run(const Pack<T>* body, std::int64_t packs, std::int64_t first,
                                              std::int64_t end, const Load& load, Acc (&acc)[Unroll], Step step)
{
  using P                       = Pack<T>;
  constexpr std::int64_t tile   = static_cast<std::int64_t>(Threads) * Unroll;
  const std::int64_t full_tiles = packs / tile;
  const int tid                 = threadIdx.x;
  for (std::int64_t t = first; t < min(end, full_tiles); ++t)
  {
    P v[Unroll];
    load_packs<Threads>(body + t * tile + tid, load, v);
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
    {
      acc[u] = step(acc[u], v[u]);
    }
  }
  if (first <= full_tiles && full_tiles < end) // this block owns the partial last tile: same loads, predicated
  {
    fold_partial_round<Threads, Unroll>(body, full_tiles * tile + tid, packs, load,
                                        [&acc, step](int u, const P& v) { acc[u] = step(acc[u], v); });
  }
}

// This thread's share of in[0, n) when a grid of Threads-thread blocks folds it. The body is cut into
// tiles of Threads x Unroll packs, the last one possibly partial; block `block` owns the contiguous tiles
// [block x tiles_per_block, ... + tiles_per_block). Within a tile, thread t loads packs t, t + Threads,
// ... (each warp-wide load is 512 contiguous bytes) into Unroll separate accumulators, so no add waits
// on another. Block 0's first threads take the head and the tail. The order depends only on (n, the
// address modulo 16, tiles_per_block), so results are reproducible for a fixed launch shape.
template <int Threads, int Unroll, class Load, class T, class ReduceOp>
__device__ __forceinline__ T fold_tiles(const T* in, std::int64_t n, std::int64_t block, std::int64_t tiles_per_block,
                                        const Load& load, ReduceOp op)
{
  using P                     = Pack<T>;
  constexpr std::int64_t tile = static_cast<std::int64_t>(Threads) * Unroll;
  const auto misalignment     = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(in) % sizeof(P));
  const std::int64_t head =
      misalignment == 0 ? 0 : min(n, static_cast<std::int64_t>((sizeof(P) - misalignment) / sizeof(T)));
  const P* body                 = reinterpret_cast<const P*>(in + head);
  const std::int64_t packs      = (n - head) / pack_size<T>;
  const T* tail                 = in + head + packs * pack_size<T>;
  const std::int64_t tail_count = n - head - packs * pack_size<T>;
  const std::int64_t first      = block * tiles_per_block;
  const std::int64_t end        = min(first + tiles_per_block, (packs + tile - 1) / tile);
  const int tid                 = threadIdx.x;

  T acc[Unroll];
#pragma unroll
  for (int u = 0; u < Unroll; ++u)
  {
    acc[u] = ReduceOp::template identity<T>();
  }
  if (block == 0 && tid < head)
  {
    acc[0] = op(acc[0], load.scalar(in + tid));
  }
  if (block == 0 && tid < tail_count)
  {
    acc[Unroll - 1] = op(acc[Unroll - 1], load.scalar(tail + tid));
  }

  fold_tile_run<Threads>(body, packs, first, end, load, acc, [op](T a, P v) { return fold_into(a, v, op); });

#pragma unroll
  for (int u = 1; u < Unroll; ++u)
  {
    acc[0] = op(acc[0], acc[u]);
  }
  return acc[0];
}

// One block's tiles of in[0, n) (fold_tiles), reduced across the block; valid in thread 0.
template <int Threads, int Unroll, class Load, class T, class ReduceOp>
__device__ __forceinline__ T block_fold(const T* in, std::int64_t n, std::int64_t block, std::int64_t tiles_per_block,
                                        const Load& load, ReduceOp op)
{
  return block_reduce<Threads>(fold_tiles<Threads, Unroll>(in, n, block, tiles_per_block, load, op), op);
}

// The whole of in[0, n) folded by the calling block alone (a finishing block over the partials);
// valid in thread 0.
template <int Threads, int Unroll, class Load, class T, class ReduceOp>
__device__ __forceinline__ T block_fold_all(const T* in, std::int64_t n, const Load& load, ReduceOp op)
{
  return block_fold<Threads, Unroll>(in, n, 0, n, load, op); // n tiles per block covers every tile
}

} // namespace redu
