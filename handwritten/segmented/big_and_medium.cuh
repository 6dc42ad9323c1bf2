// The general path's second launch: a persistent grid splits the big segments into pieces claimed
// dynamically by all blocks, then gives each medium segment a warp, and resets the counters.
#pragma once

#include "common/contract/status.hpp"
#include "common/device/block_reduce.cuh"
#include "common/device/grid_ticket.cuh"
#include "common/device/per_device.cuh"
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

__host__ __device__ constexpr std::int64_t min64(std::int64_t a, std::int64_t b)
{
  return a < b ? a : b;
}

// The big entry holding chunk x: the largest e with first_chunk[e] <= x (first_chunk[0] = 0 and the
// values increase). A 32-way search by one warp, log32(entries) dependent loads instead of log2.
__device__ std::int64_t find_entry(const std::int64_t* first_chunk, std::int64_t entries, std::int64_t x)
{
  const int lane  = threadIdx.x % 32;
  std::int64_t lo = 0, hi = entries; // first_chunk[lo] <= x, and hi == entries or first_chunk[hi] > x
  while (hi - lo > 1)
  {
    const std::int64_t step  = (hi - lo + 31) / 32;
    const std::int64_t probe = lo + lane * step;
    const unsigned below     = __ballot_sync(full_mask, probe < hi && first_chunk[probe] <= x);
    const int k              = 31 - __clz(static_cast<int>(below)); // lane 0 probes lo: always set
    hi                       = min64(hi, lo + (k + 1) * step);
    lo                       = lo + k * step;
  }
  return lo;
}

// Second launch of the general path, a persistent grid (SMs x resident blocks):
// 1. Big segments. Their chunks are numbered consecutively, entry by entry, by the first launch; blocks
//    claim 4 chunk numbers at a time from a counter and fold the pieces (up to 4 chunks, counted from
//    the segment start) that begin among them, so every block streams about the same number of bytes
//    whatever the segment lengths: one segment of 2^28 elements and 2048 of 2^17 balance alike, to
//    within one piece. A segment of one piece is written directly; otherwise each piece's value goes to
//    a slot, and the block that completes the last piece (a grid ticket per entry) folds the slots in
//    piece order. Chunk numbers depend on the order of the first launch's atomics, but the pieces and
//    their fold order depend only on the segment, so the result is deterministic.
// 2. Medium segments, a warp each, round-robin over the list; each warp prefetches the bounds of its
//    next 32 segments in one go, so a segment costs one memory round trip, not three.
// Finally the last block to finish resets the counters for the next call.
template <class T, class ReduceOp>
__global__ void __launch_bounds__(block_threads)
    reduce_big_and_medium(const T* __restrict__ in, T* __restrict__ out, Scratch<T> ws, ReduceOp op)
{
  constexpr std::int64_t chunk = elements<T>(chunk_vectors);
  __shared__ std::int64_t shared_batch;
  __shared__ std::int64_t shared_entry;
  __shared__ bool shared_last;
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;

  wait_for_first_launch();
  // Written by the first launch; volatile so that no read is repeated after the counters are reset.
  const unsigned long long packed = *static_cast<volatile unsigned long long*>(ws.big_packed);
  const auto medium_total = static_cast<std::int64_t>(*static_cast<volatile unsigned long long*>(ws.medium_count));
  const auto entries      = static_cast<std::int64_t>(packed >> chunk_bits);
  const auto chunks       = static_cast<std::int64_t>(packed & chunk_mask);
  if (chunks == 0 && medium_total == 0)
  {
    // Nothing was listed (no segment split, or only tiny and small ones): every counter is still zero,
    // so there is nothing to reset either, and a thousand same-address atomics are saved.
    return;
  }

  if (chunks > 0)
  {
    // Claims are not prefetched one batch ahead: measured, that hides one round trip per batch but
    // lengthens the tail (blocks hold claimed work while others run dry; DESIGN.md).
    while (true)
    {
      if (threadIdx.x == 0)
      {
        shared_batch =
            static_cast<std::int64_t>(atomicAdd(ws.chunk_cursor, static_cast<unsigned long long>(batch_chunks)));
      }
      __syncthreads();
      const std::int64_t batch = shared_batch;
      if (batch >= chunks)
      {
        break;
      }
      const std::int64_t batch_end = min64(chunks, batch + batch_chunks);
      if (warp == 0)
      {
        const std::int64_t entry = find_entry(ws.big_first_chunk, entries, batch);
        if (lane == 0)
        {
          shared_entry = entry;
        }
      }
      __syncthreads();
      // The pieces whose first chunk lies in [batch, batch_end): entry by entry from the one holding batch.
      for (std::int64_t entry = shared_entry; entry < entries; ++entry)
      {
        const std::int64_t entry_first = ws.big_first_chunk[entry];
        if (entry_first >= batch_end)
        {
          break;
        }
        const SegmentRef ref            = ws.big_list[entry];
        const std::int64_t s            = ref.segment;
        const std::int64_t a            = ref.begin;
        const std::int64_t b            = ref.end;
        const std::int64_t entry_chunks = (b - a + chunk - 1) / chunk;
        const std::int64_t pieces       = (entry_chunks + piece_chunks - 1) / piece_chunks;
        std::int64_t piece = batch <= entry_first ? 0 : (batch - entry_first + piece_chunks - 1) / piece_chunks;
        for (; piece < pieces && entry_first + piece * piece_chunks < batch_end; ++piece)
        {
          const std::int64_t first_chunk = piece * piece_chunks; // within the segment
          const std::int64_t last_chunk  = min64(entry_chunks, first_chunk + piece_chunks);
          T partial                      = ReduceOp::template identity<T>();
          for (std::int64_t k = first_chunk; k < last_chunk; ++k)
          {
            const std::int64_t chunk_begin = a + k * chunk;
            const std::int64_t chunk_end   = min64(b, chunk_begin + chunk);
            partial = op(partial, fold_range<block_threads, unroll>(in, chunk_begin, chunk_end, threadIdx.x,
                                                                    ReadOnlyLoad{}, op));
          }
          partial = block_reduce<block_threads>(partial, op);
          if (pieces == 1)
          {
            if (threadIdx.x == 0)
            {
              out[s] = partial;
            }
          }
          else
          {
            if (threadIdx.x == 0)
            {
              ws.piece_slots[entry_first + first_chunk] = partial;
              // Release this slot; the last piece's block acquires every other piece's slot.
              shared_last = last_arrival(ws.big_pieces_done + entry, static_cast<unsigned>(pieces));
            }
            __syncthreads();
            if (shared_last) // every piece is in its slot: fold them in piece order
            {
              // The ticket and the barrier after it order every slot's write before these reads: no fence.
              // The reads stay volatile (strong loads at L2, never a stale L1 line) rather than __ldcg, the
              // same kind of load, which changed this kernel's register allocation (f64 sum: 126 -> 80
              // registers, and so the size of this persistent grid).
              T total = ReduceOp::template identity<T>();
              for (std::int64_t q = threadIdx.x; q < pieces; q += block_threads)
              {
                const T value = *static_cast<volatile T*>(ws.piece_slots + entry_first + q * piece_chunks);
                total         = op(total, value);
              }
              total = block_reduce<block_threads>(total, op);
              if (threadIdx.x == 0)
              {
                out[s] = total;
              }
            }
          }
          __syncthreads(); // block_reduce's shared slots and shared_last are reused by the next piece
        }
      }
    }
  }

  const std::int64_t warp_id    = static_cast<std::int64_t>(blockIdx.x) * warps_per_block + warp;
  const std::int64_t warp_count = static_cast<std::int64_t>(gridDim.x) * warps_per_block;
  for (std::int64_t round = 0; warp_id + round * warp_count < medium_total; round += 32)
  {
    const std::int64_t item = warp_id + (round + lane) * warp_count;
    std::int64_t s = -1, a = 0, b = 0;
    if (item < medium_total)
    {
      const SegmentRef ref = ws.medium_list[item];
      s                    = ref.segment;
      a                    = ref.begin;
      b                    = ref.end;
    }
    for (int l = 0; l < 32; ++l)
    {
      const std::int64_t segment = __shfl_sync(full_mask, s, l);
      if (segment < 0) // items grow with l: the rest are past the list too
      {
        break;
      }
      const std::int64_t begin = __shfl_sync(full_mask, a, l);
      const std::int64_t end   = __shfl_sync(full_mask, b, l);
      T partial                = fold_range<32, unroll>(in, begin, end, lane, ReadOnlyLoad{}, op);
      partial                  = warp_reduce(partial, op);
      if (lane == 0)
      {
        out[segment] = partial;
      }
    }
  }

  __syncthreads(); // orders this block's reads of the counters before its ticket
  if (threadIdx.x == 0)
  {
    if (last_arrival(ws.blocks_done, gridDim.x)) // every block has read the counters and claimed its last batch
    {
      *ws.medium_count = 0;
      *ws.big_packed   = 0;
      *ws.chunk_cursor = 0;
      *ws.blocks_done  = 0;
    }
  }
}

// The second launch, reduce_big_and_medium over a persistent grid, as a programmatic dependent of the
// first: its blocks are scheduled while the first launch's last blocks still run (they call
// allow_dependent_launch() when they start) and wait in griddepcontrol.wait, so its launch latency is
// hidden behind the first launch's tail (DESIGN.md); stream order holds
// for everything after it. Its grid is persistent: every block resident at once.
template <class T, class ReduceOp>
Status launch_second(const T* in, T* out, const Scratch<T>& scratch, cudaStream_t stream)
{
  constexpr auto kernel = reduce_big_and_medium<T, ReduceOp>;
  int blocks = 0;
  REDU_TRY((resident_blocks<kernel, block_threads>(blocks)));
  return launch_dependent(kernel, static_cast<unsigned>(blocks), block_threads, stream, in, out, scratch, ReduceOp{});
}

} // namespace
} // namespace redu::segmented
