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
// (sm_90); 64 bytes in flight per thread, 16 KB per block. Measured on the H100 at one wave (GPU clock,
// cold L2; handwritten/precision/NOTES.md): 2 loads lose 1% at 2^30 (f32 and f64) and cost 1.3 us at
// 2^16; 8 spill the float kernel and lose 2% at 2^30.
inline constexpr int unroll = 4;
// The compensated sum's, per element type. Its element costs ~8 flops and its running state is one
// (sum, error) pair per load slot. Floats: the modern family's 8 (128 bytes in flight per thread, 32 KB
// tiles, half the blocks and grid tickets of 4; 16 registers of state). Doubles: 4, since 8 slots are 32
// registers of state, and measured at 8 they lost 4-10% at 2^22-2^30 on the H100 while floats gained
// 5-7% at 2^24-2^27 on the H200 (handwritten/precision/NOTES.md, code_id 2faa5bb275e8c4f0).
template <class T> inline constexpr int compensated_unroll = sizeof(T) == 4 ? 8 : 4;
// The compensated sum's grid: at most this many waves of resident blocks, the modern family's default. A
// default: a GPU's table (tuning/<gpu-slug>.txt, "precision.waves") may set another; every block ends
// with a grid ticket, whose cost is not the same on every GPU (handwritten/modern/NOTES.md, idea 22).
inline constexpr int default_waves = 64;

// The compensated sum's grid ("precision.waves").
inline Status grid_waves(int& waves)
{
  static std::atomic<int> cache[cached_devices] = {};
  return tuned_per_device(cache, "precision.waves", default_waves, 1, 1024, waves);
}

// The exact sum's grid, a value of its own ("precision.exact_waves"), by default one wave of resident
// blocks: each of its blocks ends with a costlier finish than a plain sum's (warp flushes into shared
// limbs, warp 0's carries, global limb atomics, the ticket), so it wants few blocks with many tiles.
// Measured: at 64 waves (one 16 KiB tile per block up to 2^27 floats) the H100's exact f32 sum read
// x0.53-0.58 of the plain sum at 2^22-2^27 and x0.94-0.99 at 2^29-2^30 (code_id d7f2507c5e1c6468); the
// tuner's run on that code scored one wave 26% faster than 64 over f32/f64 2^22-2^30 (geometric mean,
// tuning/nvidia-h100-80gb-hbm3.txt) and 8 waves 18% faster; the H200, at one wave, read x0.71 at 2^24
// and x0.89-0.96 from 2^26 (code_id d8b423ad3a7127e2).
inline constexpr int default_exact_waves = 1;

inline Status exact_grid_waves(int& waves)
{
  static std::atomic<int> cache[cached_devices] = {};
  return tuned_per_device(cache, "precision.exact_waves", default_exact_waves, 1, 1024, waves);
}

} // namespace redu::precision
