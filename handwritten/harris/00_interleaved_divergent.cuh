// Harris kernel 1 (reduce0): interleaved addressing with divergent branching.
//
// Idea: the textbook tree. Each block loads one element per thread into shared memory, then halves the
// number of live partials at every step: at stride s, every thread whose index is a multiple of 2s adds
// the partial s places to its right. Thread 0 writes the block's partial; the multi-pass driver relaunches
// the kernel on the partials until one value is left.
// Flaw it has (removed by kernel 2): `tid % (2 * s)` selects threads scattered over every warp, so all warps
// stay busy while most of their threads idle (divergent branches), and the modulo is a slow instruction.
// Requirements: blockDim.x a power of two (128 here); dynamic shared memory of blockDim.x elements. Any n:
// threads past the end load the operator's identity. 64-bit element index.
// Source: Harris, "Optimizing Parallel Reduction in CUDA", Reduction #1 (reduce0 in his code); also the
// reduce0 of the "Reduction on CUDA" (pi) seed document.
// Harris's G80 figure (4M ints, 128 threads): 8.054 ms, 2.083 GB/s, the 1x baseline of his table.
#pragma once

#include "handwritten/harris/multi_pass_driver.cuh"

namespace redu::harris
{

template <class T, class ReduceOp>
__global__ void reduce0(const T* __restrict__ in, T* __restrict__ out, std::int64_t n, ReduceOp op)
{
  T* sdata               = shared_array<T>();
  const unsigned int tid = threadIdx.x;
  const std::int64_t i   = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + tid;
  sdata[tid]             = i < n ? in[i] : ReduceOp::template identity<T>();
  __syncthreads();

  for (unsigned int s = 1; s < blockDim.x; s *= 2)
  {
    if (tid % (2 * s) == 0)
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
