// The compensated sum's block (precision lessons 2 and 3, 02_compensated_sum.cu and
// 03_compensated_atomic.cu, which differ only in how blocks are combined): Neumaier's (sum, error) pair
// per pack slot of each thread, the pairs merged with TwoSum across the thread, the warp and the block,
// always in the same order. 02_compensated_sum.cu says why and what it costs.
#pragma once

#include "common/contract/problem.hpp"
#include "common/device/range_fold.cuh"
#include "common/device/tiled_input.cuh"
#include "common/device/vector_load.cuh"
#include "handwritten/precision/precision_shape.cuh"

#include <cstdint>
#include <cstring>
#include <limits>

namespace redu::precision
{

template <class T> struct Compensated
{
  T sum   = 0;
  T error = 0;

  // Neumaier's step: Fast2Sum with the operands in magnitude order.
  __device__ __forceinline__ void add(T x)
  {
    const T t = sum + x;
    error += fabs(sum) >= fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }

  // Knuth's TwoSum: the exact error of sum + other.sum whatever their magnitudes; the errors add.
  __device__ __forceinline__ void merge(const Compensated& other)
  {
    const T t  = sum + other.sum;
    const T bp = t - sum;
    const T e  = (sum - (t - bp)) + (other.sum - bp);
    sum        = t;
    error += other.error + e;
  }

  // An infinite or NaN sum is the answer alone: its error term is NaN by then (inf - inf). In U, wider
  // than T if asked: two floats' sum in a double is rounded at double's u, not float's.
  template <class U = T> __device__ __forceinline__ U result() const
  {
    return isfinite(sum) ? static_cast<U>(sum) + static_cast<U>(error) : static_cast<U>(sum);
  }
};

template <class T> __device__ __forceinline__ Compensated<T> shuffle_xor(const Compensated<T>& c, int mask)
{
  return {__shfl_xor_sync(0xffffffffu, c.sum, mask), __shfl_xor_sync(0xffffffffu, c.error, mask)};
}

// The block's pairs merged in a fixed order (butterflies within warps, then warp 0 over the warps);
// valid in thread 0. Contains __syncthreads.
template <int Threads, class T> __device__ __forceinline__ Compensated<T> block_merge(Compensated<T> c)
{
  __shared__ T sums[Threads / 32];
  __shared__ T errors[Threads / 32];
  for (int mask = 16; mask > 0; mask /= 2)
  {
    c.merge(shuffle_xor(c, mask));
  }
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (lane == 0)
  {
    sums[warp]   = c.sum;
    errors[warp] = c.error;
  }
  __syncthreads();
  if (warp == 0)
  {
    c = lane < Threads / 32 ? Compensated<T>{sums[lane], errors[lane]} : Compensated<T>{};
    for (int mask = 16; mask > 0; mask /= 2)
    {
      c.merge(shuffle_xor(c, mask));
    }
  }
  return c;
}

// The block's tiles [blockIdx.x x tiles_per_block, + tiles_per_block) of Threads x compensated_unroll<T>
// packs as one merged pair, valid in thread 0 (block 0 also takes the unaligned head and the tail).
// Contains __syncthreads.
template <int Threads, class T>
__device__ __forceinline__ Compensated<T> block_compensated(const T* in, std::int64_t n, std::int64_t tiles_per_block,
                                                            bool evict_first)
{
  using P = Pack<T>;
  const TiledInput<T> input(in, n);
  constexpr std::int64_t tile = static_cast<std::int64_t>(Threads) * compensated_unroll<T>;
  const std::int64_t first    = blockIdx.x * tiles_per_block;
  const std::int64_t end      = min(first + tiles_per_block, input.tiles(tile));

  Compensated<T> slot[compensated_unroll<T>]; // one chain per pack slot, so the chains' latencies overlap
  if (blockIdx.x == 0 && threadIdx.x < input.head)
  {
    slot[0].add(in[threadIdx.x]);
  }
  if (blockIdx.x == 0 && threadIdx.x < input.tail_count)
  {
    slot[compensated_unroll<T> - 1].add(input.tail[threadIdx.x]);
  }
  const StreamingLoad load(evict_first); // its L2 priority: common/device/l2_policy.cuh
  // Full tiles with every load issued before any is used, the last tile predicated (fold_tile_run). A
  // bounds test on each load of every tile (the first spelling) let the compiler fold each pack before
  // loading the next: one 16-byte load in flight per thread, whatever compensated_unroll says.
  fold_tile_run<Threads>(input.body, input.packs, first, end, load, slot, [](Compensated<T> c, const P& x) {
    T lane[pack_size<T>];
    std::memcpy(lane, &x.v, sizeof(lane));
#pragma unroll
    for (int e = 0; e < pack_size<T>; ++e)
    {
      c.add(lane[e]);
    }
    return c;
  });
#pragma unroll
  for (int u = 1; u < compensated_unroll<T>; ++u)
  {
    slot[0].merge(slot[u]);
  }
  return block_merge<Threads>(slot[0]);
}

// The bound of Higham (Accuracy and Stability of Numerical Algorithms, section 4.3), (2u + 2 n u^2)
// sum|x|, as the contract's factor x u x sum|x|.
inline double compensated_bound(DType dtype, std::int64_t count)
{
  const double u = dtype == DType::f32 ? std::numeric_limits<float>::epsilon() / 2 : std::numeric_limits<double>::epsilon() / 2;
  return 2 + 2 * static_cast<double>(count) * u;
}

} // namespace redu::precision
