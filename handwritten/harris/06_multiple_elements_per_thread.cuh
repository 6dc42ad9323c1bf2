// Harris kernel 7 (reduce6): multiple elements per thread.
//
// Idea: algorithm cascading. A fixed grid walks the array with a grid-stride loop; each thread folds many
// elements (two per round, BlockSize apart, as kernel 4's load) in a register before the unrolled tree of
// kernel 6. Brent's theorem says each thread should do O(log n) sequential work for the tree to be
// cost-efficient; Harris found more pays further, since every block's tree and launch share is amortised
// over many elements and many loads are in flight per thread.
// Flaw of kernel 6 it removes: too little work per thread, one block per 2 * BlockSize elements
// (Harris: 1.42x).
// Difference from Harris: his template parameter nIsPow2 drops the bounds check of the second load when n
// is a power of two; here the check stays and every n is handled by the same instantiation.
// Requirements: as kernel 6 (BlockSize power of two in [64, 1024], launched with BlockSize threads); any n;
// 64-bit element index; the grid is capped, so the launcher decides the elements per thread.
// Source: Harris, "Optimizing Parallel Reduction in CUDA", Reduction #7 (reduce6).
// Harris's G80 figure (4M ints): 0.268 ms, 62.671 GB/s; step speed-up 1.42x, cumulative 30.04x over
// kernel 1 (2.083 -> 62.671 GB/s).
#pragma once

#include "handwritten/harris/05_completely_unrolled.cuh"

namespace redu::harris
{

template <unsigned int BlockSize, class T, class ReduceOp>
__global__ void __launch_bounds__(BlockSize)
  reduce6(const T* __restrict__ in, T* __restrict__ out, std::int64_t n, ReduceOp op)
{
  T* sdata                     = shared_array<T>();
  const unsigned int tid       = threadIdx.x;
  const std::int64_t grid_size = static_cast<std::int64_t>(2 * BlockSize) * gridDim.x;
  T value                      = ReduceOp::template identity<T>();
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * (2 * BlockSize) + tid; i < n; i += grid_size)
  {
    value = op(value, in[i]);
    if (i + BlockSize < n)
    {
      value = op(value, in[i + BlockSize]);
    }
  }
  sdata[tid] = value;
  __syncthreads();

  const T result = unrolled_block_reduce<BlockSize>(sdata, tid, op);
  if (tid == 0)
  {
    out[blockIdx.x] = result;
  }
}

} // namespace redu::harris
