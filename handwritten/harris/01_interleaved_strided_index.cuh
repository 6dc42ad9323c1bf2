// Harris kernel 2 (reduce1): interleaved addressing with a strided index and non-divergent branches.
//
// Idea: the same tree as kernel 1, but the k-th active thread works on partial 2*s*k. Active threads are
// now the lowest-numbered ones, so whole warps either work or skip the step, and the modulo is gone.
// Flaw of kernel 1 it removes: divergent warps and the `%` instruction (Harris: 2.33x).
// Flaw it has (removed by kernel 3): thread k reads and writes sdata[2*s*k], a stride of 2s words, so the
// threads of a warp hit the same shared-memory banks: 2-way, 4-way, ... bank conflicts that serialise.
// Requirements: as kernel 1 (power-of-two blockDim.x, 128 here; any n; 64-bit element index).
// Source: Harris, "Optimizing Parallel Reduction in CUDA", Reduction #2 (reduce1); the seed's reduce1.
// Harris's G80 figure (4M ints): 3.456 ms, 4.854 GB/s; step speed-up 2.33x, cumulative 2.33x. The seed
// measured no difference to kernel 1 because its host clock() timed only the asynchronous launch call.
#pragma once

#include "handwritten/harris/multi_pass_driver.cuh"

namespace redu::harris
{

template <class T, class ReduceOp>
__global__ void reduce1(const T* __restrict__ in, T* __restrict__ out, std::int64_t n, ReduceOp op)
{
  T* sdata               = shared_array<T>();
  const unsigned int tid = threadIdx.x;
  const std::int64_t i   = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + tid;
  sdata[tid]             = i < n ? in[i] : ReduceOp::template identity<T>();
  __syncthreads();

  for (unsigned int s = 1; s < blockDim.x; s *= 2)
  {
    const unsigned int index = 2 * s * tid;
    if (index < blockDim.x)
    {
      sdata[index] = op(sdata[index], sdata[index + s]);
    }
    __syncthreads();
  }

  if (tid == 0)
  {
    out[blockIdx.x] = sdata[0];
  }
}

} // namespace redu::harris
