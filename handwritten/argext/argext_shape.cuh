// Tuning as data: every launch-shape constant of the argext family, each with the rule it follows, and
// the host functions that turn them into grids. First choices, by analogy with the modern and segmented
// families; what was measured since is in handwritten/modern/DESIGN.md (rows marked argext).
#pragma once

#include "common/contract/status.hpp"
#include "common/device/l2_policy.cuh"
#include "common/device/per_device.cuh"
#include "common/device/tuned_per_device.cuh"
#include "common/device/vector_load.cuh"

#include <atomic>
#include <cstdint>
#include <cuda_runtime.h>

namespace redu::argext
{

// Threads per block: 8 warps, as the modern family (256 measured best there for one value per thread;
// a pair adds one or two registers, not enough to move occupancy).
inline constexpr int block_threads = 256;
// 16-byte loads per thread in flight before any is compared: 128 bytes per thread, 32 KiB per block and
// tile, the modern family's choice.
inline constexpr int unroll = 8;
// Lesson 2 (the key) only: inputs of at least large_input_l2_multiple x the L2 take blocks of
// large_input_threads (the same 8 loads per thread, a tile twice as large, half as many blocks), as
// modern.atomic does for large inputs. Measured, 512-thread blocks gained a little at 2^25-2^26 elements,
// nothing at 2^24 or from 2^27, and lost below 2^22 (fewer blocks for a small input;
// handwritten/modern/DESIGN.md). Twice the L2 puts the switch between 2^24 and 2^25 floats on the H200
// (60 MB) and the H100 (50 MB).
inline constexpr int large_input_threads     = 512;
inline constexpr int large_input_l2_multiple = 2;
// The input's L2 priority: evict_first when it is larger than the L2, evict_normal when it fits
// (common/device/l2_policy.cuh says why), chosen per call.

// Full arrays: a grid of at most this many waves of resident blocks, each a contiguous run of tiles.
// Fewer waves than the modern family's 64: each block leaves a 12- or 16-byte pair (not 4 bytes), and
// the last block reads them all alone; 16 waves of ~8 blocks per SM is ~17k partials (~200 KiB) on an
// H100, ~1% of a 2^28-float read. A default: a GPU's table (tuning/<gpu-slug>.txt, "argext.waves") may
// set another, as for the modern family (every block ends with a grid ticket, whose cost per block is
// not the same on every GPU: handwritten/modern/DESIGN.md).
inline constexpr int default_full_waves = 16;
// Upper bound on every full-array grid, so the workspace is sized without asking the device.
inline constexpr int max_grid = 65536;

// Rows (batched and segmented): a row of at most warp_row_max_length elements (average length, for
// segments) is folded by a group of lanes within a warp (lanes_per_row below), a longer one by a block.
// 512 floats is 16 per lane of a whole warp, one or two rounds of loads; a block on such a row would
// leave most of its threads without a pack.
inline constexpr std::int64_t warp_row_max_length = 512;
// Equal rows (batched) up to "argext.equal_row_warp_max" elements stay with one warp each when there are
// enough of them to give every SM a block's worth of warps (warp_rows_per_sm x SMs rows): a block per
// row of 4096 floats loads its 16 KiB in one round and then stands in a block-wide reduction, so an SM's
// few resident blocks (register-bound: 5 of 256 threads on an H200) leave the memory idle between rows;
// a warp streams its row in 8 rounds and ends in five shuffles. Measured on 65536 rows of 4096 floats, a
// warp per row won on the H200 and lost on the H100 (tuning/README.md). So the limit is per GPU: the
// default, default_equal_row_warp_max = warp_row_max_length, keeps block-per-row beyond 512 (the rule
// adds no rows), and a GPU's table (tuning/<gpu-slug>.txt, "argext.equal_row_warp_max", tuned by
// scripts/tune_shapes.py's argext_rows group) may raise it. Segments keep 512: their average hides the
// skew, and one warp on a log-normal set's longest segment held the whole launch.
inline constexpr int default_equal_row_warp_max = static_cast<int>(warp_row_max_length);
inline constexpr int max_equal_row_warp_max     = 65536;
inline constexpr std::int64_t warp_rows_per_sm  = block_threads / 32;
// Loads in flight per thread in the row kernels: rows are shorter than arrays, and 4 x 16 bytes already
// covers a 4096-float row with one round of a 256-thread block.
inline constexpr int row_unroll = 4;

// Lanes per short row: the fewest (a power of two, 1 to 32) that hold the row's 16-byte packs in one
// round of row_unroll loads each. Why not always a warp: a warp on a row of 8 floats (2 packs) has 2 lanes
// loading 32 bytes while 30 wait, so an SM's 64 warps keep ~2 KiB in flight, against the tens of KiB that
// bandwidth x latency asks (Little's law). With one lane per such row, each warp has 32 rows and 1 KiB in
// flight. Rows of 8 / 32 / 64 / 256 / 512 floats: 1 / 2 / 4 / 16 / 32 lanes.
template <class T> inline int lanes_per_row(std::int64_t average_length)
{
  const std::int64_t packs = (average_length + pack_size<T> - 1) / pack_size<T>;
  int lanes                = 1;
  while (lanes < 32 && static_cast<std::int64_t>(lanes) * row_unroll < packs)
  {
    lanes *= 2;
  }
  return lanes;
}

// Few long rows (the sampling shapes: 1 or 8 rows of 151936 logits): one block per row would use 1 or 8
// SMs. With fewer rows than split_rows_below_sms x the SM count, each row is cut into chunks of at least
// split_chunk_packs 16-byte packs (16 KiB: one round of row_unroll loads for a 256-thread block), one
// block per chunk, and the last block of a row (a per-row ticket) combines the row's pairs. The grid aims
// at one wave of resident blocks.
inline constexpr std::int64_t split_chunk_packs = static_cast<std::int64_t>(block_threads) * row_unroll;
inline constexpr int split_rows_below_sms       = 1;
// Fixed workspace places of the split (problem.hpp: only counters may be assumed zero, so the tickets
// never move): split_max_rows tickets, then split_max_blocks pairs. Rows beyond split_max_rows take a
// block each (with that many rows the GPU is full anyway).
inline constexpr int split_max_rows   = 1024;
inline constexpr int split_max_blocks = 8192;

inline Status multiprocessors(int& sms)
{
  static std::atomic<int> cache[cached_devices] = {};
  return cached_per_device(cache, sms, [](int device, int& value) {
    REDU_CUDA_TRY(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, device));
    return Status::success();
  });
}

// Waves of resident blocks a full-array grid may hold (default_full_waves, or this GPU's table).
inline Status full_grid_waves(int& waves)
{
  static std::atomic<int> cache[cached_devices] = {};
  return tuned_per_device(cache, "argext.waves", default_full_waves, 1, 1024, waves);
}

// The longest equal row (batched) a warp group takes when there are many rows (default_equal_row_warp_max,
// or this GPU's table).
inline Status equal_row_warp_max(int& length)
{
  static std::atomic<int> cache[cached_devices] = {};
  return tuned_per_device(cache, "argext.equal_row_warp_max", default_equal_row_warp_max, default_equal_row_warp_max,
                          max_equal_row_warp_max, length);
}

// A full array's grid: `blocks` blocks, each a contiguous chunk of `chunk` elements (a whole number of
// tiles of block_threads x unroll packs); one tile per block while that fits in `max_blocks`. And the L2
// priority of the input's loads (common/device/l2_policy.cuh).
struct FullShape
{
  int blocks         = 1;
  std::int64_t chunk = 0;
  bool evict_first   = false;
};

template <class T, int Threads = block_threads> FullShape full_shape(std::int64_t n, std::int64_t max_blocks)
{
  const std::int64_t tile      = static_cast<std::int64_t>(Threads) * unroll * pack_size<T>;
  const std::int64_t tiles     = n / tile + 1;
  const std::int64_t cap       = max_blocks < max_grid ? max_blocks : max_grid;
  const std::int64_t per_block = (tiles + cap - 1) / cap;
  FullShape shape;
  shape.chunk  = per_block * tile;
  shape.blocks = static_cast<int>((n + shape.chunk - 1) / shape.chunk);
  shape.blocks = shape.blocks < 1 ? 1 : shape.blocks;
  return shape;
}

// The shape for a full-array kernel of this family (Threads per block): at most argext.waves waves of
// its resident blocks, and the L2 priority for n elements of T on this device.
template <auto Kernel, class T, int Threads = block_threads> Status full_launch_shape(std::int64_t n, FullShape& shape)
{
  int resident = 0;
  int waves    = 0;
  REDU_TRY((resident_blocks<Kernel, Threads>(resident)));
  REDU_TRY(full_grid_waves(waves));
  shape = full_shape<T, Threads>(n, static_cast<std::int64_t>(waves) * resident);
  return input_evict_first<T>(n, shape.evict_first);
}

// Whether n elements of T take large_input_threads in lesson 2: at least large_input_l2_multiple x the L2.
template <class T> Status takes_large_blocks(std::int64_t n, bool& large)
{
  int l2 = 0;
  REDU_TRY(l2_cache_bytes(l2));
  large = static_cast<std::size_t>(n) * sizeof(T) >= static_cast<std::size_t>(large_input_l2_multiple) * l2;
  return Status::success();
}

// Blocks per row when long rows are split (1: no split). `average` is the row length (batched) or the
// mean segment length (segmented), `resident` the blocks of the split kernel resident at once.
template <class T> std::int64_t split_blocks_per_row(std::int64_t rows, std::int64_t average, int sms, int resident)
{
  if (rows < 1 || rows > split_max_rows || rows >= static_cast<std::int64_t>(split_rows_below_sms) * sms)
  {
    return 1;
  }
  const std::int64_t chunk   = split_chunk_packs * pack_size<T>;
  std::int64_t per_row       = (average + chunk - 1) / chunk; // no chunk shorter than `chunk`
  const std::int64_t to_fill = (resident + rows - 1) / rows;  // one wave in all
  const std::int64_t room    = split_max_blocks / rows;       // the workspace's pairs
  per_row                    = per_row < to_fill ? per_row : to_fill;
  per_row                    = per_row < room ? per_row : room;
  return per_row < 2 ? 1 : per_row;
}

} // namespace redu::argext
