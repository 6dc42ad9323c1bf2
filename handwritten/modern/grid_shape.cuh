// Host-side launch shape of the modern family: how many blocks and how many tiles each, from the
// constants in modern_shape.cuh and the device's resident blocks.
#pragma once

#include "common/device/l2_policy.cuh"
#include "common/device/per_device.cuh"
#include "common/device/tuned_per_device.cuh"
#include "common/contract/status.hpp"
#include "handwritten/modern/modern_shape.cuh"

#include <cstdint>
#include <cuda_runtime.h>
#include <type_traits>

namespace redu::modern
{

struct LaunchShape
{
  int blocks                   = 1;
  std::int64_t tiles_per_block = 1; // contiguous tiles of Threads x Unroll 16-byte packs (fold_tiles)
  bool evict_first             = false; // the L2 priority of the input's loads (common/device/l2_policy.cuh)
};

// Shape for n elements of T in tiles of `tile_packs` packs, at most `max_blocks` blocks: one tile per
// block while that fits (small inputs: every thread issues all its loads at once, one memory round trip),
// then as few tiles per block as keep the grid within max_blocks. The host's tile count is an upper
// bound on the device's (which first peels the unaligned head), so every tile has an owner.
template <class T> LaunchShape shape_for(std::int64_t n, int tile_packs, std::int64_t max_blocks)
{
  const std::int64_t packs     = n / (16 / sizeof(T)) + 1;
  const std::int64_t tiles     = (packs + tile_packs - 1) / tile_packs;
  const std::int64_t cap       = max_blocks < max_grid ? max_blocks : max_grid;
  const std::int64_t per_block = (tiles + cap - 1) / cap;
  LaunchShape shape;
  shape.blocks          = static_cast<int>((tiles + per_block - 1) / per_block);
  shape.tiles_per_block = per_block;
  return shape;
}

// Waves of resident blocks a grid of lessons 1-3 and 5 may hold (default_waves).
inline Status grid_waves(int& waves)
{
  static std::atomic<int> cache[cached_devices] = {};
  return tuned_per_device(cache, "modern.waves", default_waves, 1, 1024, waves);
}

// log2 of the input bytes from which modern.atomic takes large_input_threads (large_input_log2).
inline Status large_input_bytes_log2(int& log2_bytes)
{
  static std::atomic<int> cache[cached_devices] = {};
  return tuned_per_device(cache, "modern.large_input_log2", large_input_log2, 1, 62, log2_bytes);
}

// Whether n elements of `element_bytes` each are at least 2^large_input_bytes_log2 bytes, the inputs that
// take large_input_threads. By bytes, so n halves take the blocks of n/2 floats.
inline Status takes_large_blocks(std::int64_t n, std::size_t element_bytes, bool& large)
{
  int log2_bytes = 0;
  REDU_TRY(large_input_bytes_log2(log2_bytes));
  large = n >= (std::int64_t{1} << log2_bytes) / static_cast<std::int64_t>(element_bytes);
  return Status::success();
}

// The grid for a kernel of this family: at most `waves` waves of its resident blocks.
template <auto Kernel, int Threads, int Unroll, class T>
Status grid_shape(std::int64_t n, int waves, LaunchShape& shape)
{
  int resident = 0;
  REDU_TRY((resident_blocks<Kernel, Threads>(resident)));
  shape = shape_for<T>(n, Threads * Unroll, static_cast<std::int64_t>(waves) * resident);
  return Status::success();
}

// The grid, and the L2 priority for n elements of T on this device, for kernels that take the priority
// as an argument (StreamingLoad: the precision family).
template <auto Kernel, int Threads, int Unroll, class T>
Status launch_shape(std::int64_t n, int waves, LaunchShape& shape)
{
  REDU_TRY((grid_shape<Kernel, Threads, Unroll, T>(n, waves, shape)));
  return input_evict_first<T>(n, shape.evict_first);
}

// This family's kernels take their input's load form as a template argument (InputLoad<EvictFirst>,
// common/device/vector_load.cuh): calls launch(std::true_type{}) for n elements of T larger than the L2,
// launch(std::false_type{}) otherwise, so that each caller names one instantiation per form.
template <class T, class Launch> Status with_input_load(std::int64_t n, Launch&& launch)
{
  bool evict_first = false;
  REDU_TRY(input_evict_first<T>(n, evict_first));
  return evict_first ? launch(std::true_type{}) : launch(std::false_type{});
}

} // namespace redu::modern
