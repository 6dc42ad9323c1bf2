// Harris kernel 6 (reduce5): completely unrolled.
//
// Idea: the block size is a template parameter, so the number of tree steps is known at compile time;
// every `if (BlockSize >= ...)` disappears at compile time and the tree is straight-line code. Harris
// dispatches a runtime block size to one of the ten instantiations with a switch; this project always
// launches 128 threads, so only that instantiation exists.
// Flaw of kernel 5 it removes: the remaining loop counter, branch and address arithmetic (Harris: 1.41x).
// Flaw it has (removed by kernel 7): one or two elements per thread is too little work per thread to hide
// memory latency; each block pays its tree and its launch share for only 2 * BlockSize elements.
// Requirements: BlockSize a power of two in [64, 1024], launched with exactly BlockSize threads; any n;
// 64-bit element index.
// Source: Harris, "Optimizing Parallel Reduction in CUDA", Reduction #6 (reduce5).
// Harris's G80 figure (4M ints): 0.381 ms, 43.996 GB/s; step speed-up 1.41x, cumulative 21.16x.
#pragma once

#include "handwritten/harris/04_unroll_last_warp.cuh"

namespace redu::harris
{

// The unrolled tree of kernels 6 and 7, from BlockSize partials in sdata (visible to the block) to the
// block's result, which is valid in thread 0. Call from all BlockSize threads.
template <unsigned int BlockSize, class T, class ReduceOp>
__device__ __forceinline__ T unrolled_block_reduce(T* sdata, unsigned int tid, ReduceOp op)
{
  static_assert(BlockSize >= 64 && BlockSize <= 1024 && (BlockSize & (BlockSize - 1)) == 0,
                "the unrolled tree needs a power-of-two block of 64 to 1024 threads");
  if constexpr (BlockSize >= 1024)
  {
    if (tid < 512)
    {
      sdata[tid] = op(sdata[tid], sdata[tid + 512]);
    }
    __syncthreads();
  }
  if constexpr (BlockSize >= 512)
  {
    if (tid < 256)
    {
      sdata[tid] = op(sdata[tid], sdata[tid + 256]);
    }
    __syncthreads();
  }
  if constexpr (BlockSize >= 256)
  {
    if (tid < 128)
    {
      sdata[tid] = op(sdata[tid], sdata[tid + 128]);
    }
    __syncthreads();
  }
  if constexpr (BlockSize >= 128)
  {
    if (tid < 64)
    {
      sdata[tid] = op(sdata[tid], sdata[tid + 64]);
    }
    __syncthreads();
  }
  T result = ReduceOp::template identity<T>();
  if (tid < 32)
  {
    result = last_warp_reduce(sdata, tid, op);
  }
  return result;
}

template <unsigned int BlockSize, class T, class ReduceOp>
__global__ void __launch_bounds__(BlockSize)
  reduce5(const T* __restrict__ in, T* __restrict__ out, std::int64_t n, ReduceOp op)
{
  T* sdata               = shared_array<T>();
  const unsigned int tid = threadIdx.x;
  sdata[tid]             = load_pair(in, n, BlockSize, op);
  __syncthreads();

  const T result = unrolled_block_reduce<BlockSize>(sdata, tid, op);
  if (tid == 0)
  {
    out[blockIdx.x] = result;
  }
}

} // namespace redu::harris
