// Tuning as data: every launch-shape constant of the modern family (block size, loads in flight, waves,
// cluster size, the L2 policy and block-size thresholds), each with the rule it follows. The measurements
// behind them: DESIGN.md, 'What was tried'. Three of them are defaults that a GPU model's measured table
// overrides at run time (common/host/tuning.hpp, scripts/tune_shapes.py): the grid's waves and tiles per
// block, and the large-input threshold; the others are template arguments, compiled in.
#pragma once

#include <cstdint>

namespace redu::modern
{

// Threads per block: 8 warps. 128 and 512 measured slower or equal at 2^20-2^22 (DESIGN.md).
inline constexpr int block_threads = 256;
// 16-byte loads each thread issues before it folds any: 128 bytes in flight per thread, 32 KB per block
// and tile. 2, 4 and 8 are within 2% at 2^30; 4 is slower at small n (DESIGN.md).
inline constexpr int unroll = 8;

// modern.atomic only: inputs of at least 2^large_input_log2 bytes take blocks of large_input_threads (the same
// 8 loads per thread, a tile twice as large): half the blocks, so half the atomics on one word, where the
// inputs are large enough that the grid's tail is all that differs; below that, more blocks balance better
// (DESIGN.md).
// The threshold is a default: a GPU's table (tuning/<gpu-slug>.txt, "modern.large_input_log2") may move it.
inline constexpr int large_input_threads = 512;
inline constexpr int large_input_log2    = 29; // 512 MiB

// Threads that the kernels borrowing this shape keep resident on an SM at least (__launch_bounds__'s
// minimum blocks, min_resident_threads / Threads): 1024, which caps a thread at 64 registers, the register
// file's 65536 (every SM from sm_70 to sm_100) / 1024. modern.atomic's f32 sum needs no cap: 64
// registers, 4 blocks of 256 or 2 of 512, 128 KB of loads in flight per SM. Without it the kernels that
// widen halves or carry a compensation took 68-80 and held 3 blocks of 256 or 1 of 512, a quarter to a half
// of the loads in flight gone (handwritten/halves/DESIGN.md, handwritten/precision/DESIGN.md).
inline constexpr int min_resident_threads = 1024;

// Upper bound on every grid of this family, so workspaces are sized without asking the device. 4 KB
// tiles with 262144 blocks lost 6% to the partials and tickets (DESIGN.md).
inline constexpr int max_grid = 65536;

// A grid holds at most this many waves of resident blocks. Many short blocks let the hardware block
// scheduler balance the work across SMs (a persistent grid of one wave ends with the slowest SM's tail;
// DESIGN.md); the cap keeps the partials, and the finishing block's fold over them, small.
// A default: a GPU's table (tuning/<gpu-slug>.txt, "modern.waves") may set another.
inline constexpr int default_waves = 64;

// Tiles a block folds, as a target inside those bounds: about tiles / tiles_per_block blocks, never fewer
// than one wave of resident blocks (or one per tile), never more than the waves allow (GridRule,
// grid_shape.cuh). 1: one tile per block while the cap allows, the rule before this value existed.
// Why a target besides the cap: a block that folds several tiles pays its start and its finish (an atomic, a
// ticket) once for them all, while many waves balance the SMs' tails, and one value of modern.waves cannot
// give mid-size inputs a few tiles a block and large ones many waves. No measured GPU's tuner chose a target
// above 1 (DESIGN.md), so 1 is the default; a GPU's table ("modern.tiles_per_block") may set another.
inline constexpr int default_tiles_per_block = 1;
// A cooperative launch needs every block resident at once (modern.cooperative): one wave, no more.
inline constexpr int cooperative_waves = 1;

// Blocks per cluster (modern.cluster): 8, the portable maximum, so the first level of the combine,
// over DSMEM, is as wide as it can be everywhere.
inline constexpr int cluster_blocks = 8;

// The input loads' form is not a constant: StreamingLoad with evict_first for inputs larger than the L2,
// plain read-only loads for those that fit, from the device's L2 size (InputLoad in
// common/device/vector_load.cuh, the rule in common/device/l2_policy.cuh; DESIGN.md).

} // namespace redu::modern
