// An adaptive segmented reduction: the mapping of threads to a segment is chosen from its length.
//
// Idea: no single mapping is good for every segment length. One block per segment (Lei Mao's batched
// kernel, CUB's DeviceSegmentedReduce) leaves the GPU idle when segments are few and long, and spends
// most of its time on block-wide barriers and idle threads when they are many and short. So each
// segment gets the smallest group of threads that can stream it at full speed, and long segments get
// several blocks:
//
//   length (16-byte vectors)   mapping                                         where
//   equal rows, 2^k <= 256     one warp-wide tile of 8 x 512 B loads covers      pow2_rows.cuh
//                              2^k-lane groups of rows; shuffles per row         (reduce_pow2_rows)
//   equal rows >= 32 KiB       one block per 32 KiB tile of every row, then a    tiled_rows.cuh
//                              block per row over its partials, in tile order
//   >= 1024 equal rows of      one block per row: enough rows to fill the GPU    block_per_segment.cuh
//   >= 2048 elements           and long enough to stream
//   >= 1024 segments of        one block per segment, except those over both     block_per_segment.cuh
//   >= 2048 elements on        128 KiB and 4 x the average length, which go to   (reduce_block_per_segment)
//   average (offsets)          the big list (last row); blocks of 512 threads
//                              when the average is 512 KiB or more, else 256
//   otherwise, by length:
//   <= 8      (128 B)          one thread                                        classify_small.cuh
//   <= 64     (1 KiB)          a pair of lanes                                   (classify_and_reduce_small)
//   <= 1024   (16 KiB)         a warp, from a list written by the first pass     big_and_medium.cuh
//   > 1024                     pieces of up to 4 x 32 KiB claimed dynamically    (reduce_big_and_medium)
//                              by all blocks, combined in piece order
//
// Equal rows (Kind::batched) of a power-of-two number of vectors up to 4 KiB take the first mapping,
// decided on the host from the row length. Everything else (variable offsets, or equal rows of other
// lengths, read through the same segment interface) takes two launches: the first classifies 256
// segments per block, reduces the tiny and small ones on the spot and appends the medium and big ones
// to lists in the workspace (or, for many long segments, gives each its own block); the second reduces
// the big ones' chunks and then the medium ones.
// This file is the policy that picks the mapping. Beside the kernels named above: segmented_shape.cuh
// holds every limit and threshold of the table, scratch_layout.cuh the workspace and its lists,
// segment_bounds.cuh how a segment's bounds are read, dependent_launch.cuh how the second launch overlaps
// the first; how a group of threads folds a range is common/device/range_fold.cuh.
//
// Flaw of the one-block-per-segment kernels it removes: their speed depends on the shape (CUB's
// DeviceSegmentedReduce is near peak with thousands of long segments and far below it with one long
// segment or millions of tiny ones; DESIGN.md).
// Requirements: 64-bit offsets, any alignment of the input and of segment starts (heads and tails are
// loaded element by element, bodies as 16-byte vectors); n <= 2^34 (the 24-bit entry count and 40-bit
// chunk count packed into one 64-bit counter); a workspace of lists and partial slots (about 1% of the
// input's bytes) whose four counters are zero between calls (the last block of the second launch resets
// them). Everything else in it is per-call state written before it is read: a big entry's piece counter
// is zeroed by the first launch together with the entry, because the lists' layout depends on the
// problem, so an earlier call of another shape may have left list data where this call counts pieces.
// Deterministic: each segment is folded in an order fixed by its bounds and the input's address alone
// (never by which block or warp gets it, nor by the grid size); atomics only hand out list positions
// and work, and count finished pieces.
// What each mapping and limit was measured against: DESIGN.md; the current figures: results/.
// Source: Lei Mao's batched kernels (a block per row) and the "Large Array Reduce Sum" section (split a
// long row over several blocks), extended as in CUB's segmented reduce and moderngpu's tile thinking.
#include "common/device/per_device.cuh"
#include "common/device/tuned_per_device.cuh"
#include "common/contract/typed_reduction.cuh"
#include "handwritten/segmented/big_and_medium.cuh"
#include "handwritten/segmented/block_per_segment.cuh"
#include "handwritten/segmented/classify_small.cuh"
#include "handwritten/segmented/pow2_rows.cuh"
#include "handwritten/segmented/scratch_layout.cuh"
#include "handwritten/segmented/segment_bounds.cuh"
#include "handwritten/segmented/segmented_shape.cuh"
#include "handwritten/segmented/tiled_rows.cuh"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cuda_runtime.h>
#include <string>

namespace redu::segmented
{
namespace
{

// Threads of the offsets path's block per segment on this GPU: block_per_segment_threads, or
// bounds_hiding_threads where the GPU's table says so (segmented_shape.cuh says why).
Status tuned_segment_threads(int& threads)
{
  static std::atomic<int> cache[cached_devices] = {};
  REDU_TRY(tuned_per_device(cache, "segmented.segment_threads", block_per_segment_threads, bounds_hiding_threads,
                            block_per_segment_threads, threads));
  if (threads != bounds_hiding_threads && threads != block_per_segment_threads)
  {
    return Status::invalid("tuning table: segmented.segment_threads = " + std::to_string(threads) + " is neither "
                           + std::to_string(bounds_hiding_threads) + " nor "
                           + std::to_string(block_per_segment_threads));
  }
  return Status::success();
}

// Waves of reduce_pow2_rows's grid on this GPU: pow2_rows_waves, or its table's value (segmented_shape.cuh).
Status tuned_pow2_rows_waves(int& waves)
{
  static std::atomic<int> cache[cached_devices] = {};
  return tuned_per_device(cache, "segmented.rows_waves", pow2_rows_waves, 1, 1024, waves);
}

// log2 of the row length in vectors when equal rows can take reduce_pow2_rows, -1 otherwise.
template <class T>
int pow2_row_vectors(const Problem& p)
{
  constexpr std::int64_t width = pack_size<T>;
  const std::int64_t length    = p.row_length();
  const std::int64_t vectors   = length / width;
  const bool aligned           = reinterpret_cast<std::uintptr_t>(p.input) % 16 == 0;
  if (!aligned || length % width != 0 || vectors < 1 || vectors > 32 * unroll || (vectors & (vectors - 1)) != 0)
  {
    return -1;
  }
  int log2 = 0;
  while ((std::int64_t{1} << log2) < vectors)
  {
    ++log2;
  }
  return log2;
}

class AdaptiveSegmented : public TypedReduction<AdaptiveSegmented>
{
public:
  AdaptiveSegmented()
    : TypedReduction({.name   = "segmented.adaptive",
                      .family = "segmented",
                      .source = "Lei Mao, CUDA Reduction (2024), batched and large-array sections, made adaptive",
                      .idea   = "a thread, 2 lanes, a warp or 128 KiB pieces over all blocks per segment, by length",
                      .kinds  = {Kind::batched, Kind::segmented},
                      .max_n  = max_elements_total,
                      .needs  = {.optional = {Feature::programmatic_dependent_launch, Feature::l2_cache_hints}}})
  {}

  // The general path's lists, whichever path run() takes (the choice also depends on the input's
  // alignment, which a workspace query need not know).
  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem& p) const
  {
    return layout<T>(p).bytes;
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    const auto* in = static_cast<const T*>(p.input);
    auto* out      = static_cast<T*>(p.output);
    if (p.kind == Kind::batched)
    {
      const int log2_row_vectors = pow2_row_vectors<T>(p);
      if (log2_row_vectors >= 0)
      {
        int resident = 0;
        int waves    = 0;
        REDU_TRY((resident_blocks<reduce_pow2_rows<T, ReduceOp>, block_threads>(resident)));
        REDU_TRY(tuned_pow2_rows_waves(waves));
        const std::int64_t tiles  = ((p.segments << log2_row_vectors) + 32 * unroll - 1) / (32 * unroll);
        const std::int64_t wanted = (tiles + warps_per_block - 1) / warps_per_block; // one warp tile per warp
        const std::int64_t blocks = std::min(std::int64_t{resident} * waves, wanted);
        reduce_pow2_rows<<<static_cast<unsigned>(blocks), block_threads, 0, stream>>>(in, out, p.segments,
                                                                                      log2_row_vectors, ReduceOp{});
        REDU_CUDA_TRY(cudaPeekAtLastError());
        return Status::success();
      }
      // Rows of at least one tile (32 KiB), however few: a block per tile of every row, then a block per
      // row folds its partials (tiled_rows.cuh); the partials take the piece slots of the general path.
      if (p.row_length() >= elements<T>(row_tile_vectors))
      {
        return launch_tiled_rows<T, ReduceOp>(in, out, p.segments, p.row_length(),
                                              carve<T>(ws.data, layout<T>(p)).piece_slots, stream);
      }
      // Thousands of rows of 8-32 KiB: one block per row keeps every SM streaming, needs no
      // classification pass and no second launch, and has all of a row's loads in flight at once
      // (DESIGN.md).
      if (p.segments >= min_rows_for_block_per_row && p.row_length() >= min_length_for_block_per_row)
      {
        // No row is split (split_above is the row length), so the workspace lists stay untouched.
        return launch_block_per_segment<block_per_segment_threads, T, ReduceOp>(
            in, out, EqualRows{p.row_length()}, p.segments, p.row_length(), carve<T>(ws.data, layout<T>(p)), stream);
      }
      return run_general<T, ReduceOp>(p, ws, EqualRows{p.row_length()}, stream);
    }
    return run_general<T, ReduceOp>(p, ws, OffsetArray{p.offsets}, stream);
  }

private:
  template <class T, class ReduceOp, class Segments>
  static Status run_general(const Problem& p, Workspace ws, Segments segs, cudaStream_t stream)
  {
    const auto* in           = static_cast<const T*>(p.input);
    auto* out                = static_cast<T*>(p.output);
    const Scratch<T> scratch = carve<T>(ws.data, layout<T>(p));

    // Enough segments to fill the GPU with blocks, and long enough on average that a block per segment
    // streams (the average bounds the cost of a block given to a short one: at least 8 KiB read per
    // block): one block per segment, no classification, which streams them faster than classifying them
    // (DESIGN.md).
    // Which segments are split instead: with a thousand or more segments the blocks of typical ones keep
    // the GPU busy and the block scheduler balances them, so only a segment far longer than the average
    // (split_factor times, and over one 128 KiB piece) would hold an SM after the rest are done. Splitting
    // every segment over 128 KiB, as this did before, sent all of 2048 x 2^17 floats through the second
    // launch's pieces, slower than a block each (DESIGN.md).
    // The second launch is what keeps this path slightly behind CUB on such shapes even when nothing is
    // split (DESIGN.md). Tried and dropped: one launch with helper blocks after the
    // segment blocks, numbered by a ticket taken at block start so that helpers wait only for running
    // blocks. Without the second launch 2048 x 2^17 and 2048 x 2^18 matched CUB, but the two atomics per
    // block slowed 2^16 x 4096 and the log-normal shape badly, and the helpers' extra registers halved
    // occupancy (DESIGN.md).
    const std::int64_t average = p.n / p.segments; // segments > 0: redu::run returns before launching otherwise
    if (p.segments >= min_rows_for_block_per_row && average >= min_length_for_block_per_row)
    {
      const std::int64_t split_above = std::max(elements<T>(chunk_vectors * piece_chunks), split_factor * average);
      if (average * static_cast<std::int64_t>(sizeof(T)) >= long_average_bytes)
      {
        REDU_TRY((launch_block_per_segment<long_segment_threads, T, ReduceOp>(in, out, segs, p.segments, split_above,
                                                                             scratch, stream)));
      }
      else
      {
        int threads = 0;
        REDU_TRY(tuned_segment_threads(threads));
        REDU_TRY((threads == bounds_hiding_threads
                      ? launch_block_per_segment<bounds_hiding_threads, T, ReduceOp>(in, out, segs, p.segments,
                                                                                    split_above, scratch, stream)
                      : launch_block_per_segment<block_per_segment_threads, T, ReduceOp>(in, out, segs, p.segments,
                                                                                        split_above, scratch, stream)));
      }
    }
    else
    {
      int resident = 0;
      REDU_TRY((resident_blocks<classify_and_reduce_small<T, ReduceOp, Segments>, block_threads>(resident)));
      const std::int64_t blocks = std::min<std::int64_t>(resident, (p.segments + block_threads - 1) / block_threads);
      classify_and_reduce_small<<<static_cast<unsigned>(blocks), block_threads, 0, stream>>>(in, out, segs, p.segments,
                                                                                             scratch, ReduceOp{});
      REDU_CUDA_TRY(cudaPeekAtLastError());
    }

    return launch_second<T, ReduceOp>(in, out, scratch, stream);
  }
};

REDU_REGISTER(AdaptiveSegmented);

} // namespace
} // namespace redu::segmented
