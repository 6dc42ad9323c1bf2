// Tuning as data for the precision family: the launch-shape constants of its kernels, each with its
// rule. Not yet measured on a GPU (NOTES.md): the values are the modern family's, whose kernels read the
// same way (16-byte loads, tiles of Threads x Unroll packs, a data-sized grid of at most 64 waves).
#pragma once

namespace redu::precision
{

// 8 warps per block, as the modern family (handwritten/modern/modern_shape.cuh, idea 15 there).
inline constexpr int block_threads = 256;
// 16-byte loads each thread issues per tile: 4, half the modern family's 8, because each element costs
// about 15 integer instructions here (decode, shift, add) instead of one add, and registers hold the
// running sums as well: 64 bytes in flight per thread, 16 KB per block.
inline constexpr int unroll = 4;
// A grid of at most this many waves of resident blocks (the modern family's default_waves).
inline constexpr int waves = 64;

} // namespace redu::precision
