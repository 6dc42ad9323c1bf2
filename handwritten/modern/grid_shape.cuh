// Host-side launch shape of the modern family: how many blocks, how many tiles each, and which L2
// eviction priority the input loads carry, from the constants in modern_shape.cuh.
#pragma once

#include "common/device/per_device.cuh"
#include "common/contract/status.hpp"
#include "handwritten/modern/modern_shape.cuh"

#include <atomic>
#include <cstdint>
#include <cuda_runtime.h>

namespace redu::modern
{

inline Status l2_cache_bytes(int& bytes)
{
  static std::atomic<int> cache[cached_devices] = {};
  return cached_per_device(cache, bytes, [](int device, int& value) {
    REDU_CUDA_TRY(cudaDeviceGetAttribute(&value, cudaDevAttrL2CacheSize, device));
    return Status::success();
  });
}

struct LaunchShape
{
  int blocks                   = 1;
  std::int64_t tiles_per_block = 1; // contiguous tiles of Threads x Unroll 16-byte packs (fold_tiles)
  bool evict_first             = true;
};

// Shape for n elements of T in tiles of `tile_packs` packs, at most `max_blocks` blocks: one tile per
// block while that fits (small inputs: every thread issues all its loads at once, one memory round trip),
// then as few tiles per block as keep the grid within max_blocks. The host's tile count is an upper
// bound on the device's (which first peels the unaligned head), so every tile has an owner.
template <class T> LaunchShape shape_for(std::int64_t n, int tile_packs, std::int64_t max_blocks, int l2_bytes)
{
  const std::int64_t packs     = n / (16 / sizeof(T)) + 1;
  const std::int64_t tiles     = (packs + tile_packs - 1) / tile_packs;
  const std::int64_t cap       = max_blocks < max_grid ? max_blocks : max_grid;
  const std::int64_t per_block = (tiles + cap - 1) / cap;
  LaunchShape shape;
  shape.blocks          = static_cast<int>((tiles + per_block - 1) / per_block);
  shape.tiles_per_block = per_block;
  shape.evict_first =
      n <= static_cast<std::int64_t>(evict_first_l2_multiple) * l2_bytes / static_cast<std::int64_t>(sizeof(T));
  return shape;
}

// The shape for a kernel of this family: at most `waves` waves of its resident blocks.
template <auto Kernel, int Threads, int Unroll, class T>
Status launch_shape(std::int64_t n, int waves, LaunchShape& shape)
{
  int resident = 0;
  int l2       = 0;
  REDU_TRY((resident_blocks<Kernel, Threads>(resident)));
  REDU_TRY(l2_cache_bytes(l2));
  shape = shape_for<T>(n, Threads * Unroll, static_cast<std::int64_t>(waves) * resident, l2);
  return Status::success();
}

} // namespace redu::modern
