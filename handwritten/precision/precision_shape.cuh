// Tuning as data for the precision family: the launch-shape constants of its kernels, each with its
// rule. They start from the modern family's, whose kernels read the same way (16-byte loads, tiles of
// Threads x Unroll packs, a data-sized grid of at most 64 waves); what moved them: DESIGN.md.
#pragma once

#include "common/device/per_device.cuh"
#include "common/device/tuned_per_device.cuh"

namespace redu::precision
{

// 8 warps per block, as the modern family (handwritten/modern/modern_shape.cuh).
inline constexpr int block_threads = 256;
// 16-byte loads each thread of the exact sum issues per tile: 4, half the modern family's 8, because
// registers hold the running sums as well: 56 (float) and 60 (double) registers at four blocks per SM
// (sm_90); 64 bytes in flight per thread, 16 KB per block. 2 loads were slower at both ends, 8 spill the
// float kernel (handwritten/precision/DESIGN.md).
inline constexpr int unroll = 4;
// The compensated sum's, per element type. Its element costs ~8 flops and its running state is one
// (sum, error) pair per load slot. Floats: the modern family's 8 (128 bytes in flight per thread, 32 KB
// tiles, half the blocks and grid tickets of 4; 16 registers of state). Doubles: 4, since 8 slots are 32
// registers of state, and at 8 they lost where floats gained (handwritten/precision/DESIGN.md).
template <class T> inline constexpr int compensated_unroll = sizeof(T) == 4 ? 8 : 4;
// The compensated sum's grid: at most this many waves of resident blocks, the modern family's default. A
// default: a GPU's table (tuning/<gpu-slug>.txt, "precision.waves") may set another; every block ends
// with a grid ticket, whose cost is not the same on every GPU (handwritten/modern/DESIGN.md).
inline constexpr int default_waves = 64;

// The compensated sum's grid ("precision.waves").
inline Status grid_waves(int& waves)
{
  static std::atomic<int> cache[cached_devices] = {};
  return tuned_per_device(cache, "precision.waves", default_waves, 1, 1024, waves);
}

// The exact sum's grid, a value of its own ("precision.exact_waves"), by default one wave of resident
// blocks: each of its blocks ends with a costlier finish than a plain sum's (warp flushes into shared
// limbs, warp 0's carries, global limb atomics, the ticket), so it wants few blocks with many tiles. At 64
// waves (one 16 KiB tile per block up to 2^27 floats) the finishes dominated at mid sizes, and every
// measured GPU's tuner has kept one wave since (handwritten/precision/DESIGN.md, tuning/*.txt).
inline constexpr int default_exact_waves = 1;

inline Status exact_grid_waves(int& waves)
{
  static std::atomic<int> cache[cached_devices] = {};
  return tuned_per_device(cache, "precision.exact_waves", default_exact_waves, 1, 1024, waves);
}

} // namespace redu::precision
