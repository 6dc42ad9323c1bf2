// An input cut for 16-byte loads: the elements before the first 16-byte boundary (the head), the whole
// packs from there (the body, read in tiles of packs), and the elements after the last whole pack (the
// tail). A tiled fold gives block b the tiles [b x tiles_per_block, + tiles_per_block) of the body, and
// block 0 the head and the tail too. (fold_tiles in range_fold.cuh spells the same cut out in its own
// arithmetic, with which its kernels were tuned.)
#pragma once

#include "common/device/vector_load.cuh"

#include <cstdint>
#include <cuda_runtime.h>

namespace redu
{

template <class T> struct TiledInput
{
  std::int64_t head;       // elements before the first 16-byte boundary (fewer than a pack)
  const Pack<T>* body;     // the first whole pack
  std::int64_t packs;      // whole packs in the body
  const T* tail;           // the elements after the last whole pack
  std::int64_t tail_count; // fewer than a pack

  __device__ __forceinline__ TiledInput(const T* in, std::int64_t n)
  {
    const auto misalignment = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(in) % sizeof(Pack<T>));
    head       = misalignment == 0 ? 0 : min(n, static_cast<std::int64_t>((sizeof(Pack<T>) - misalignment) / sizeof(T)));
    body       = reinterpret_cast<const Pack<T>*>(in + head);
    packs      = (n - head) / pack_size<T>;
    tail       = in + head + packs * pack_size<T>;
    tail_count = n - head - packs * pack_size<T>;
  }

  // Tiles of `tile` packs in the body, the last one possibly partial.
  __device__ __forceinline__ std::int64_t tiles(std::int64_t tile) const { return (packs + tile - 1) / tile; }
};

} // namespace redu
