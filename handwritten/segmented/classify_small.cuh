// The general path's first launch: classify segments by length, reduce the tiny ones (a thread each)
// and the small ones (a pair of lanes each) on the spot, and list the medium and big ones in the workspace.
#pragma once

#include "common/device/range_fold.cuh"
#include "common/device/warp_reduce.cuh"
#include "handwritten/segmented/dependent_launch.cuh"
#include "handwritten/segmented/scratch_layout.cuh"
#include "handwritten/segmented/segmented_shape.cuh"

#include <cstdint>
#include <cuda_runtime.h>

namespace redu::segmented
{
// Unnamed, as in the single file this came from: these kernels are private to adaptive_segmented.cu, the
// one file that includes this header, and keep internal linkage (DESIGN.md, 'internal linkage').
namespace
{

// First launch of the general path: each block takes tiles of 256 consecutive segments (one per
// thread), reads their bounds once and decides by length:
// - tiny: the thread folds its own segment right away, one round of at most 8 vector loads (plus the
//   unaligned head and tail); 256 segments are in flight at once.
// - small: listed in shared memory and handed to the block's 128 pairs of lanes, 128 segments at a time.
// - medium and big: appended to the workspace lists with one atomicAdd per block and list (not per
//   segment: the counters would serialise a million same-address atomics), ranks from warp ballots.
//   A list entry costs 24 bytes written and read back per segment of more than 1 KiB: under 5% of its
//   traffic.
template <class T, class ReduceOp, class Segments>
__global__ void __launch_bounds__(block_threads)
    classify_and_reduce_small(const T* __restrict__ in, T* __restrict__ out, Segments segs, std::int64_t segments,
                              Scratch<T> ws, ReduceOp op)
{
  constexpr std::int64_t tiny_max   = elements<T>(tiny_vectors);
  constexpr std::int64_t small_max  = elements<T>(small_vectors);
  constexpr std::int64_t medium_max = elements<T>(medium_vectors);
  constexpr std::int64_t chunk      = elements<T>(chunk_vectors);
  constexpr int small_groups        = block_threads / small_group;

  __shared__ std::int64_t seg_begin[block_threads];
  __shared__ std::int64_t seg_end[block_threads];
  __shared__ int small_list[block_threads];
  __shared__ int warp_small[warps_per_block];
  __shared__ int warp_medium[warps_per_block];
  __shared__ int warp_big[warps_per_block];
  __shared__ std::int64_t warp_chunks[warps_per_block];
  __shared__ int small_count;
  __shared__ unsigned long long medium_base;
  __shared__ unsigned long long big_base;

  allow_dependent_launch();
  const int lane              = threadIdx.x % 32;
  const int warp              = threadIdx.x / 32;
  const unsigned lanes_before = (1u << lane) - 1;

  std::int64_t a = 0, b = 0; // bounds of this thread's segment in the current tile
  if (static_cast<std::int64_t>(blockIdx.x) * block_threads + threadIdx.x < segments)
  {
    a = segs.begin(static_cast<std::int64_t>(blockIdx.x) * block_threads + threadIdx.x);
    b = segs.end(static_cast<std::int64_t>(blockIdx.x) * block_threads + threadIdx.x);
  }
  for (std::int64_t tile = blockIdx.x; tile * block_threads < segments; tile += gridDim.x)
  {
    const std::int64_t s = tile * block_threads + threadIdx.x;
    const bool valid     = s < segments;
    // The next tile's bounds are loaded now and used after this tile's data: offsets and data, two
    // dependent round trips, then overlap instead of adding up (tiny segments are latency-bound).
    const std::int64_t next_s = s + static_cast<std::int64_t>(gridDim.x) * block_threads;
    std::int64_t next_a = 0, next_b = 0;
    if (next_s < segments)
    {
      next_a = segs.begin(next_s);
      next_b = segs.end(next_s);
    }
    const std::int64_t length = b - a;
    const bool tiny           = valid && length <= tiny_max;
    const bool small          = valid && length > tiny_max && length <= small_max;
    const bool medium         = valid && length > small_max && length <= medium_max;
    const bool big            = valid && length > medium_max;

    if (tiny) // empty segments too: the fold of nothing is the identity
    {
      out[s] = fold_range<1, unroll>(in, a, b, 0, ReadOnlyLoad{}, op);
    }

    // A tile of tiny segments only (short rows, most of a skewed distribution's segments) needs no
    // lists: the ranking below and its barriers are skipped.
    if (__syncthreads_or(valid && !tiny))
    {
      seg_begin[threadIdx.x] = a;
      seg_end[threadIdx.x]   = b;
      // Ranks within the block: ballots per warp, an exclusive scan over the 8 warps by thread 0, and the
      // block's two atomics. Big entries also need an exclusive scan of their chunk counts.
      const unsigned small_mask  = __ballot_sync(full_mask, small);
      const unsigned medium_mask = __ballot_sync(full_mask, medium);
      const unsigned big_mask    = __ballot_sync(full_mask, big);
      const std::int64_t chunks  = big ? (length + chunk - 1) / chunk : 0;
      std::int64_t chunks_upto   = chunks; // inclusive scan over the warp
#pragma unroll
      for (int d = 1; d < 32; d *= 2)
      {
        const std::int64_t before = __shfl_up_sync(full_mask, chunks_upto, d);
        chunks_upto += lane >= d ? before : 0;
      }
      if (lane == 31)
      {
        warp_small[warp]  = __popc(small_mask);
        warp_medium[warp] = __popc(medium_mask);
        warp_big[warp]    = __popc(big_mask);
        warp_chunks[warp] = chunks_upto;
      }
      __syncthreads();
      if (threadIdx.x == 0)
      {
        int small_total = 0, medium_total = 0, big_total = 0;
        std::int64_t chunk_total = 0;
        for (int w = 0; w < warps_per_block; ++w)
        {
          const int ws_small = warp_small[w], ws_medium = warp_medium[w], ws_big = warp_big[w];
          const std::int64_t ws_chunks = warp_chunks[w];
          warp_small[w]                = small_total;
          warp_medium[w]               = medium_total;
          warp_big[w]                  = big_total;
          warp_chunks[w]               = chunk_total;
          small_total += ws_small;
          medium_total += ws_medium;
          big_total += ws_big;
          chunk_total += ws_chunks;
        }
        small_count = small_total;
        medium_base = medium_total > 0 ? atomicAdd(ws.medium_count, static_cast<unsigned long long>(medium_total)) : 0;
        big_base = big_total > 0 ? atomicAdd(ws.big_packed, (static_cast<unsigned long long>(big_total) << chunk_bits) |
                                                                static_cast<unsigned long long>(chunk_total))
                                 : 0;
      }
      __syncthreads();
      if (small)
      {
        small_list[warp_small[warp] + __popc(small_mask & lanes_before)] = threadIdx.x;
      }
      if (medium)
      {
        ws.medium_list[medium_base + warp_medium[warp] + __popc(medium_mask & lanes_before)] = {s, a, b};
      }
      if (big)
      {
        const std::int64_t entry =
            static_cast<std::int64_t>(big_base >> chunk_bits) + warp_big[warp] + __popc(big_mask & lanes_before);
        ws.big_list[entry] = {s, a, b};
        ws.big_first_chunk[entry] =
            static_cast<std::int64_t>(big_base & chunk_mask) + warp_chunks[warp] + chunks_upto - chunks;
        ws.big_pieces_done[entry] = 0;
      }
      __syncthreads();

      // Small segments: lane pair g takes list entries g, g + 128, ... The trip count is the same
      // for the whole block, so every warp's shuffles see all 32 lanes.
      const int group = threadIdx.x / small_group;
      const int rank  = threadIdx.x % small_group;
      for (int first = 0; first < small_count; first += small_groups)
      {
        const int item = first + group;
        T partial      = ReduceOp::template identity<T>();
        if (item < small_count)
        {
          const int local = small_list[item];
          partial = fold_range<small_group, unroll>(in, seg_begin[local], seg_end[local], rank, ReadOnlyLoad{}, op);
        }
        partial = warp_reduce(partial, op, small_group);
        if (item < small_count && rank == 0)
        {
          out[tile * block_threads + small_list[item]] = partial;
        }
      }
      __syncthreads(); // the next tile rewrites the shared lists
    }
    a = next_a;
    b = next_b;
  }
}

} // namespace
} // namespace redu::segmented
