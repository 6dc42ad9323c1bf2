// The device-side building blocks every kernel of the modern family shares: how a block folds its tiles
// of an arbitrary (element-aligned) array with 16-byte loads, how it combines its threads, and the
// ticket that elects a finishing block. The lesson files differ only in how blocks combine their
// partials (second launch, atomics, last block, grid barrier, cluster), so everything else lives here.
// Requires sm_80 or later (L2 cache-hint loads); the kernels are tuned on sm_90.
#pragma once

#include "common/device/warp_reduce.cuh"
#include "common/contract/ops.cuh"

#include <cstdint>
#include <cstring>
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <type_traits>

namespace redu::modern
{

// Sixteen bytes of T: four 32-bit or two 64-bit elements, the widest load a thread can issue.
template <class T> struct alignas(16) Pack
{
  static constexpr int size = 16 / sizeof(T);
  T lane[size];
};

template <class T> __device__ __forceinline__ Pack<T> to_pack(uint4 raw)
{
  Pack<T> pack;
  std::memcpy(&pack, &raw, sizeof(pack)); // register moves only: both are 16 bytes
  return pack;
}

// Input that nothing writes during the launch: the read-only path (ld.global.nc), no L1 allocation
// (each byte is used once), and an explicit L2 eviction priority. evict_first suits inputs up to a
// few times the L2 size: their lines then replace each other instead of the lines already resident,
// which after a write-heavy producer (or a benchmark's flush) are dirty, so the reduction does not pay
// for writing them back. For much larger inputs evict_normal measured faster (NOTES.md): everything
// is evicted anyway, and the first-priority lines seem to lose the L2's help in streaming.
class StreamingLoad
{
public:
  __device__ __forceinline__ explicit StreamingLoad(bool evict_first)
  {
    if (evict_first)
    {
      asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy_));
    }
    else
    {
      asm("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(policy_));
    }
  }

  template <class T> __device__ __forceinline__ T scalar(const T* p) const { return __ldg(p); }

  template <class T> __device__ __forceinline__ Pack<T> vector(const Pack<T>* p) const
  {
    uint4 raw;
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(raw.x), "=r"(raw.y), "=r"(raw.z), "=r"(raw.w)
                 : "l"(p), "l"(policy_));
    return to_pack<T>(raw);
  }

private:
  std::uint64_t policy_;
};

// Values other blocks wrote earlier in the same launch (partials): the read-only path may return stale
// data here, so read at L2, the point of coherence (ld.global.cg).
struct CoherentLoad
{
  template <class T> __device__ __forceinline__ T scalar(const T* p) const { return __ldcg(p); }
  template <class T> __device__ __forceinline__ Pack<T> vector(const Pack<T>* p) const
  {
    return to_pack<T>(__ldcg(reinterpret_cast<const uint4*>(p)));
  }
};

// Folds this thread's share of in[0, n) into one value. The array is cut into an unaligned head (fewer
// than Pack::size elements up to the first 16-byte boundary), a body of 16-byte packs, and a tail of
// fewer than Pack::size elements. The body is cut into tiles of Threads x Unroll packs, the last one
// possibly partial; block `block` owns the contiguous tiles [block * tiles_per_block, ... +
// tiles_per_block). Within a tile, thread t loads packs t, t + Threads, ... (each warp-wide load is 512
// contiguous bytes), all Unroll loads issued before the first is used and folded into Unroll separate
// accumulators, so Unroll x 16 bytes per thread are in flight and no add waits on another. Block 0's
// first threads take the head and the tail. The order of operations depends only on (n, the address
// modulo 16, tiles_per_block), so results are reproducible for a fixed launch shape.
// Requirement: `in` aligned to sizeof(T).
template <int Threads, int Unroll, class Load, class T, class ReduceOp>
__device__ __forceinline__ T thread_fold(const T* in, std::int64_t n, std::int64_t block, std::int64_t tiles_per_block,
                                         const Load& load, ReduceOp op)
{
  using P                     = Pack<T>;
  constexpr std::int64_t tile = static_cast<std::int64_t>(Threads) * Unroll;
  const auto misalignment     = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(in) % sizeof(P));
  const std::int64_t head =
      misalignment == 0 ? 0 : min(n, static_cast<std::int64_t>((sizeof(P) - misalignment) / sizeof(T)));
  const P* body                 = reinterpret_cast<const P*>(in + head);
  const std::int64_t packs      = (n - head) / P::size;
  const T* tail                 = in + head + packs * P::size;
  const std::int64_t tail_count = n - head - packs * P::size;
  const std::int64_t full_tiles = packs / tile;
  const std::int64_t first      = block * tiles_per_block;
  const std::int64_t end        = min(first + tiles_per_block, (packs + tile - 1) / tile);
  const int tid                 = threadIdx.x;

  T acc[Unroll];
#pragma unroll
  for (int u = 0; u < Unroll; ++u)
  {
    acc[u] = ReduceOp::template identity<T>();
  }
  if (block == 0 && tid < head)
  {
    acc[0] = op(acc[0], load.scalar(in + tid));
  }
  if (block == 0 && tid < tail_count)
  {
    acc[Unroll - 1] = op(acc[Unroll - 1], load.scalar(tail + tid));
  }

  for (std::int64_t t = first; t < min(end, full_tiles); ++t)
  {
    const P* p = body + t * tile + tid;
    P v[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
    {
      v[u] = load.vector(p + u * Threads);
    }
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
    {
#pragma unroll
      for (int l = 0; l < P::size; ++l)
      {
        acc[u] = op(acc[u], v[u].lane[l]);
      }
    }
  }
  if (first <= full_tiles && full_tiles < end) // this block owns the partial last tile: same loads, predicated
  {
    const std::int64_t base = full_tiles * tile + tid;
    P v[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
    {
      if (base + u * Threads < packs)
      {
        v[u] = load.vector(body + base + u * Threads);
      }
    }
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
    {
      if (base + u * Threads < packs)
      {
#pragma unroll
        for (int l = 0; l < P::size; ++l)
        {
          acc[u] = op(acc[u], v[u].lane[l]);
        }
      }
    }
  }

#pragma unroll
  for (int u = 1; u < Unroll; ++u)
  {
    acc[0] = op(acc[0], acc[u]);
  }
  return acc[0];
}

// Warp reduction; for 32-bit integers Ampere and later reduce a warp in one instruction (REDUX), so
// the five shuffle rounds of redu::warp_reduce become one. Every lane receives the result.
template <class T, class ReduceOp> __device__ __forceinline__ T warp_fold(T value, ReduceOp op)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<T, std::int32_t>)
  {
    if constexpr (ReduceOp::id == Op::sum)
    {
      return __reduce_add_sync(0xffffffffu, value);
    }
    else if constexpr (ReduceOp::id == Op::min)
    {
      return __reduce_min_sync(0xffffffffu, value);
    }
    else
    {
      return __reduce_max_sync(0xffffffffu, value);
    }
  }
  else
#endif
  {
    return warp_reduce(value, op);
  }
}

// Reduces one value per thread across a block of Threads threads; the result is valid in thread 0.
// Same shape as redu::block_reduce, but through warp_fold. Call from all threads (it synchronises);
// a second call in the same kernel needs a __syncthreads() between the two (one shared array).
template <int Threads, class T, class ReduceOp> __device__ __forceinline__ T block_combine(T value, ReduceOp op)
{
  static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps, at most 1024 threads");
  constexpr int warps = Threads / 32;
  __shared__ T warp_results[warps];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;

  value = warp_fold(value, op);
  if (lane == 0)
  {
    warp_results[warp] = value;
  }
  __syncthreads();
  if (warp == 0)
  {
    value = lane < warps ? warp_results[lane] : ReduceOp::template identity<T>();
    value = warp_fold(value, op);
  }
  return value;
}

// One block's tiles of in[0, n) (see thread_fold), reduced across the block; valid in thread 0.
template <int Threads, int Unroll, class Load, class T, class ReduceOp>
__device__ __forceinline__ T block_fold(const T* in, std::int64_t n, std::int64_t block, std::int64_t tiles_per_block,
                                        const Load& load, ReduceOp op)
{
  return block_combine<Threads>(thread_fold<Threads, Unroll>(in, n, block, tiles_per_block, load, op), op);
}

// The whole of in[0, n) folded by the calling block alone (a finishing block over the partials);
// valid in thread 0.
template <int Threads, int Unroll, class Load, class T, class ReduceOp>
__device__ __forceinline__ T block_fold_all(const T* in, std::int64_t n, const Load& load, ReduceOp op)
{
  return block_fold<Threads, Unroll>(in, n, 0, n, load, op); // n tiles per block covers every tile
}

// Single-launch finish, called by one thread per block after it has published its contribution (a
// partial written, or an atomic performed): true for exactly one caller, the last of `arrivals`. The
// ticket is an acq_rel read-modify-write at device scope: release orders this block's contribution
// before its ticket, acquire lets the winner see every contribution released before the tickets it
// follows (the threadFenceReduction sample's two __threadfence()s, as one instruction's semantics).
// The winner must set *ticket back to 0 once done, so the next stream-ordered call starts clean.
__device__ __forceinline__ bool last_arrival(unsigned* ticket, unsigned arrivals)
{
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> counter(*ticket);
  return counter.fetch_add(1u, cuda::memory_order_acq_rel) == arrivals - 1;
}

} // namespace redu::modern
