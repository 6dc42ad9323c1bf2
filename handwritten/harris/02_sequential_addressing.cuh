// Harris kernel 3 (reduce2): sequential addressing.
//
// Idea: reverse the tree. At stride s (starting at blockDim.x / 2 and halving) thread tid < s adds
// sdata[tid + s] into sdata[tid]. Consecutive threads touch consecutive words, so every access of a warp
// falls in distinct banks, and the active threads stay packed in the lowest warps.
// Flaw of kernel 2 it removes: shared-memory bank conflicts from the 2s-word stride (Harris: 2.01x).
// Flaw it has (removed by kernel 4): half of the threads only load a value and then idle from the first step.
// Requirements: as kernel 1 (power-of-two blockDim.x, 128 here; any n; 64-bit element index).
// Source: Harris, "Optimizing Parallel Reduction in CUDA", Reduction #3 (reduce2); the seed's reduce2.
// Harris's G80 figure (4M ints): 1.722 ms, 9.741 GB/s; step speed-up 2.01x, cumulative 4.68x.
#pragma once

#include "handwritten/harris/multi_pass_driver.cuh"

namespace redu::harris
{

template <class T, class ReduceOp>
__global__ void reduce2(const T* __restrict__ in, T* __restrict__ out, std::int64_t n, ReduceOp op)
{
  T* sdata               = shared_array<T>();
  const unsigned int tid = threadIdx.x;
  const std::int64_t i   = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + tid;
  sdata[tid]             = i < n ? in[i] : ReduceOp::template identity<T>();
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
