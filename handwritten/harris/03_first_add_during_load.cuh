// Harris kernel 4 (reduce3): first add during load.
//
// Idea: each block covers 2 * blockDim.x elements; every thread loads two of them (blockDim.x apart, so
// both loads stay coalesced) and combines them before the shared-memory tree. Half as many blocks, and no
// thread idles after the load.
// Flaw of kernel 3 it removes: half of the threads were idle from the first tree step (Harris: 1.78x).
// Flaw it has (removed by kernel 5): the kernel is still far from bandwidth-bound; the remaining cost is
// instruction overhead (loop, address arithmetic, __syncthreads and `if (tid < s)` on steps where only one
// warp is left).
// Requirements: power-of-two blockDim.x (128 here); any n (the second load is bounds-checked too);
// 64-bit element index.
// Source: Harris, "Optimizing Parallel Reduction in CUDA", Reduction #4 (reduce3).
// Harris's G80 figure (4M ints): 0.965 ms, 17.377 GB/s; step speed-up 1.78x, cumulative 8.34x.
#pragma once

#include "handwritten/harris/multi_pass_driver.cuh"

namespace redu::harris
{

// The load of kernels 4 and 5: two elements per thread, blockDim.x apart, the missing ones as identity.
template <class T, class ReduceOp>
__device__ __forceinline__ T load_pair(const T* __restrict__ in, std::int64_t n, unsigned int block_size, ReduceOp op)
{
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * (2 * block_size) + threadIdx.x;
  T value              = i < n ? in[i] : ReduceOp::template identity<T>();
  if (i + block_size < n)
  {
    value = op(value, in[i + block_size]);
  }
  return value;
}

template <class T, class ReduceOp>
__global__ void reduce3(const T* __restrict__ in, T* __restrict__ out, std::int64_t n, ReduceOp op)
{
  T* sdata               = shared_array<T>();
  const unsigned int tid = threadIdx.x;
  sdata[tid]             = load_pair(in, n, blockDim.x, op);
  __syncthreads();

  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1)
  {
    if (tid < s)
    {
      sdata[tid] = op(sdata[tid], sdata[tid + s]);
    }
    __syncthreads();
  }

  if (tid == 0)
  {
    out[blockIdx.x] = sdata[0];
  }
}

} // namespace redu::harris
