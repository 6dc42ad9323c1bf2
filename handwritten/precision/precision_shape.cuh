// Tuning as data for the precision family: the launch-shape constants of its kernels, each with its
// rule. Not yet measured on a GPU (NOTES.md): the values are the modern family's, whose kernels read the
// same way (16-byte loads, tiles of Threads x Unroll packs, a data-sized grid of at most 64 waves).
#pragma once

#include "common/device/per_device.cuh"
#include "common/device/tuned_per_device.cuh"

namespace redu::precision
{

// 8 warps per block, as the modern family (handwritten/modern/modern_shape.cuh, idea 15 there).
inline constexpr int block_threads = 256;
// 16-byte loads each thread of the exact sum issues per tile: 4, half the modern family's 8, because
// registers hold the running sums as well: 56 (float) and 64 (double) registers at four blocks per SM
// with 4; 64 bytes in flight per thread, 16 KB per block. Not re-measured since the doubles' running sum
// became two doubles (~12 instructions per element instead of ~60): 8 may now fit the double kernel.
inline constexpr int unroll = 4;
// The compensated sum's, per element type. Its element costs ~8 flops and its running state is one
// (sum, error) pair per load slot. Floats: the modern family's 8 (128 bytes in flight per thread, 32 KB
// tiles, half the blocks and grid tickets of 4; 16 registers of state). Doubles: 4, since 8 slots are 32
// registers of state, and measured at 8 they lost 4-10% at 2^22-2^30 on the H100 while floats gained
// 5-7% at 2^24-2^27 on the H200 (handwritten/precision/NOTES.md, code_id 2faa5bb275e8c4f0).
template <class T> inline constexpr int compensated_unroll = sizeof(T) == 4 ? 8 : 4;
// A grid of at most this many waves of resident blocks: the modern family's default. A default: a
// GPU's table (tuning/<gpu-slug>.txt, "precision.waves" and "precision.exact_waves") may set another; every block ends
// with a grid ticket, whose cost is not the same on every GPU (handwritten/modern/NOTES.md, idea 22).
inline constexpr int default_waves = 64;

// The compensated sum's grid ("precision.waves").
inline Status grid_waves(int& waves)
{
  static std::atomic<int> cache[cached_devices] = {};
  return tuned_per_device(cache, "precision.waves", default_waves, 1, 1024, waves);
}

// The exact sum's grid, a value of its own ("precision.exact_waves"): its blocks end with a costlier
// finish (warp flushes of 128-bit pieces into shared limbs by compare-and-swap, thread 0's carries and
// global limb atomics), so the best count of blocks need not be the compensated sum's. At the H100's 64
// waves the exact f32 sum read x0.45-0.70 of the plain sum at 2^26-2^28 against x0.97-1.00 at
// 2^29-2^30, while the H200 at one wave showed no such dip (code_id d8b423ad3a7127e2,
// handwritten/precision/NOTES.md); the family's tuner, scoring the compensated sum, chose 8 for the H100.
inline Status exact_grid_waves(int& waves)
{
  static std::atomic<int> cache[cached_devices] = {};
  return tuned_per_device(cache, "precision.exact_waves", default_waves, 1, 1024, waves);
}

} // namespace redu::precision
