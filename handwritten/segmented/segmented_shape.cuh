// Tuning as data: every shape constant of segmented.adaptive (block size, loads in flight, the length
// classes, the chunk/piece/batch split of big segments, and the host's block-per-row / block-per-segment
// thresholds), each with the rule it follows. The measurements behind them are in DESIGN.md.
#pragma once

#include "common/device/vector_load.cuh"

#include <cstdint>

namespace redu::segmented
{

// Threads per block of every kernel but the block-per-segment one (whose size is chosen below): 8 warps,
// so a block's 256 tiny segments are one per thread and a block-round of loads is one chunk (32 KiB).
inline constexpr int block_threads   = 256;
inline constexpr int warps_per_block = block_threads / 32;
inline constexpr unsigned full_mask  = 0xffffffffu; // every lane of a warp takes part in the shuffles
// 16-byte loads each thread issues before it folds any: 128 bytes in flight per thread, so a quarter of
// the H100's 2048 threads per SM already covers the ~30 KB per SM that its bandwidth-latency product needs.
inline constexpr int unroll = 8;

// Class limits in 16-byte vectors (4 floats or ints, 2 doubles or int64s), so every type streams the
// same number of bytes per thread.
// tiny: one thread folds the segment with one round of at most `unroll` vector loads (<= 128 B).
inline constexpr std::int64_t tiny_vectors = unroll;
// small: a pair of lanes (<= 1 KiB, up to 4 rounds of 8 loads each). Pairs read whole 32-byte sectors,
// and with 128 pairs per block a tile of 256 such segments takes 2 rounds (256 B segments: 2 round
// trips). A warp per segment would leave most lanes idle and pay one round trip per segment; wider groups
// pay more rounds for the same bytes: 8 lanes lost to pairs on 64-float segments, more than they gained on
// 256-float ones (DESIGN.md).
inline constexpr int small_group            = 2;
inline constexpr std::int64_t small_vectors = 64;
// medium: a warp, at most four rounds of loads per lane (<= 16 KiB), so the last warp to finish (the
// medium phase ends the second launch) holds the GPU for only a few memory latencies. 16 KiB rather than
// 8 KiB keeps 4096-float segments off the big segments' pieces; 32 or 64 KiB gained nothing there and
// lengthened the warps' tails on skewed segments (DESIGN.md).
inline constexpr std::int64_t medium_vectors = 4 * 32 * unroll;
// big: a segment longer than 16 KiB no longer fits a warp's share of the work. It is cut into chunks of
// one block-round of loads (32 KiB), and chunks into pieces of up to 4 chunks (128 KiB) that blocks
// claim dynamically, so segments of any length and number balance to within one piece per block. The
// pieces are fixed relative to the segment start (not to the order in which blocks arrive), which is
// what keeps the result bit-reproducible.
inline constexpr std::int64_t chunk_vectors = block_threads * unroll;
inline constexpr std::int64_t piece_chunks  = 4;
// Chunk numbers a block claims with one atomicAdd: it folds the pieces that start among them (at most
// batch_chunks + piece_chunks - 1 chunks of work), so a 1 GiB segment costs 8192 atomics, not 32768.
inline constexpr std::int64_t batch_chunks = 4;

// A count of 16-byte vectors as a count of elements of T.
template <class T>
__host__ __device__ constexpr std::int64_t elements(std::int64_t vectors)
{
  return vectors * pack_size<T>;
}

// The big list's entry count and chunk count share one 64-bit counter, so one atomicAdd hands a block
// both its entries and a contiguous range of chunk numbers: entries are numbered in chunk order.
inline constexpr int chunk_bits                = 40;
inline constexpr unsigned long long chunk_mask = (1ull << chunk_bits) - 1;
// n <= 2^34: under 2^24 big entries (more than 16 KiB each) even for 8-byte T.
inline constexpr std::int64_t max_elements_total = std::int64_t{1} << 34;

// Equal rows at least this many and this long take one block per row (see run()); segments given as
// offsets, at least this many and this long on average, one block per segment (see run_general()).
// The count is enough blocks to fill the GPU (an H100 holds 132 x 8 blocks of 256 threads); the length
// (8 KiB of floats) is enough for a block to stream, and for offsets it bounds the cost of the blocks
// that get short segments.
inline constexpr std::int64_t min_rows_for_block_per_row   = 1024;
inline constexpr std::int64_t min_length_for_block_per_row = 2048;
// Threads of a block that reduces one segment in the first launch: 256, or 512 when the segments are long
// on average (long_average_bytes or more). 512 threads bring 2048 segments of 2^17 or 2^18 floats up to
// or near CUB but lose badly on 4096-element and log-normal segments; 128 threads help log-normal
// segments and lose on 4096-element ones. 256 is the only size that loses nowhere, so 512 is taken only
// for long averages (DESIGN.md). Fewer resident blocks of 256 threads (2 or
// 4 per SM) lost on every shape.
inline constexpr int block_per_segment_threads   = 256;
inline constexpr int long_segment_threads        = 512;
// Segments given as offsets make every block read its two bounds before its first load: one round trip
// per block with no load of its own in flight, a cost that differs per GPU. 128-thread blocks, twice as
// many resident and so twice as many waiting on their bounds at once, hide most of it where it costs and
// help log-normal segments, but lose at 2^16 x 4096 where it does not (DESIGN.md). So the offsets path's
// block size is the GPU's: its table's "segmented.segment_threads" (128 or 256; scripts/tune_shapes.py,
// group segmented_offsets), by default block_per_segment_threads. Equal rows read no bounds and keep 256.
inline constexpr int bounds_hiding_threads = 128;
inline constexpr std::int64_t long_average_bytes = std::int64_t{512} << 10;
// In the block-per-segment launch, a segment is split over the second launch's blocks only when it is
// longer than one piece (128 KiB) and than this many times the average length (see run_general()).
inline constexpr std::int64_t split_factor = 4;

// Waves of resident blocks in the grid of reduce_pow2_rows (equal rows of up to 4 KiB, pow2_rows.cuh), whose
// warps stride over 4 KiB warp tiles: 1 is a persistent grid in which each warp folds many tiles; 64 gives
// the sweep's shapes one tile per warp, so no warp's tail holds an SM. Both measured GPUs' tuners took
// 64 (group pow2_rows; DESIGN.md), so the default is what they chose; a GPU's table
// ("segmented.rows_waves"; scripts/tune_shapes.py) may set another.
inline constexpr int pow2_rows_waves = 64;

} // namespace redu::segmented
