// Host-side launch shape of the modern family: how many blocks and how many tiles each, from the
// constants in modern_shape.cuh and the device's resident blocks.
#pragma once

#include "common/device/l2_policy.cuh"
#include "common/device/per_device.cuh"
#include "common/device/tuned_per_device.cuh"
#include "common/contract/status.hpp"
#include "handwritten/modern/modern_shape.cuh"

#include <algorithm>
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

// How a grid of this family is sized: at most `waves` waves of resident blocks, and within that about
// `tiles_per_block` tiles a block, but never fewer blocks than one wave (or than tiles): every SM streams.
// modern_shape.cuh has each value's default and why.
struct GridRule
{
  int waves           = default_waves;
  int tiles_per_block = default_tiles_per_block;
};

// Shape for n elements of T in tiles of `tile_packs` packs, with `resident` blocks resident at once. With
// one tile per block (the default rule), one tile per block while the cap allows (small inputs: every
// thread issues all its loads at once, one memory round trip), then as few tiles per block as keep the grid
// within the cap. The host's tile count is an upper bound on the device's (which first peels the unaligned
// head), so every tile has an owner.
template <class T> LaunchShape shape_for(std::int64_t n, int tile_packs, std::int64_t resident, GridRule rule)
{
  const std::int64_t packs     = n / (16 / sizeof(T)) + 1;
  const std::int64_t tiles     = (packs + tile_packs - 1) / tile_packs;
  const std::int64_t one_wave  = std::min(resident, tiles);
  const std::int64_t wanted    = std::max(one_wave, (tiles + rule.tiles_per_block - 1) / rule.tiles_per_block);
  const std::int64_t cap       = std::min(static_cast<std::int64_t>(rule.waves) * resident, std::int64_t{max_grid});
  const std::int64_t limit     = std::min(wanted, cap);
  const std::int64_t per_block = (tiles + limit - 1) / limit;
  LaunchShape shape;
  shape.blocks          = static_cast<int>((tiles + per_block - 1) / per_block);
  shape.tiles_per_block = per_block;
  return shape;
}

// The rule of lessons 1-3 and 5 (and of the halves lessons, which borrow their shape) on the current
// device: its table's "modern.waves" and "modern.tiles_per_block", or the defaults.
// Both values are read for one device query: this runs in every timed call.
inline Status grid_rule(GridRule& rule)
{
  static std::atomic<int> waves_cache[cached_devices] = {};
  static std::atomic<int> tiles_cache[cached_devices] = {};
  int device = 0;
  REDU_CUDA_TRY(cudaGetDevice(&device));
  REDU_TRY(tuned_per_device(waves_cache, device, "modern.waves", default_waves, 1, 1024, rule.waves));
  return tuned_per_device(tiles_cache, device, "modern.tiles_per_block", default_tiles_per_block, 1, 1024,
                          rule.tiles_per_block);
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

// The grid for a kernel of this family under `rule`, from the kernel's resident blocks.
template <auto Kernel, int Threads, int Unroll, class T>
Status grid_shape(std::int64_t n, GridRule rule, LaunchShape& shape)
{
  int resident = 0;
  REDU_TRY((resident_blocks<Kernel, Threads>(resident)));
  shape = shape_for<T>(n, Threads * Unroll, resident, rule);
  return Status::success();
}

// The grid of at most `waves` waves, and the L2 priority for n elements of T on this device, for kernels
// that take the priority as an argument (StreamingLoad: the precision family, which has its own waves).
template <auto Kernel, int Threads, int Unroll, class T>
Status launch_shape(std::int64_t n, int waves, LaunchShape& shape)
{
  REDU_TRY((grid_shape<Kernel, Threads, Unroll, T>(n, GridRule{waves, 1}, shape)));
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
