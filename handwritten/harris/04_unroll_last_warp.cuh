// Harris kernel 5 (reduce4): unroll the last warp, written correctly for Volta and later.
//
// Idea: once the stride is 32 or less, only warp 0 works, so the last six steps need neither
// __syncthreads() nor the `if (tid < s)` test. Harris unrolled them as shared-memory updates on a
// `volatile` pointer, relying on the 32 threads of a warp executing in lockstep. Since Volta, threads of a
// warp are scheduled independently and that lockstep is no longer guaranteed: his warpReduce is a data race
// (kept, labelled, in legacy/04_unroll_last_warp_volatile.cuh). The correct form here keeps the last 64
// partials in registers and combines them with warp shuffles, which exchange values between lanes with
// their own synchronisation (`_sync` with a full mask); no shared memory is touched in the last steps.
// Flaw of kernel 4 it removes: loop and barrier overhead on the steps where one warp is left; Harris notes
// that this saves work in every warp, since all of them executed the loop test (Harris: 1.80x).
// Flaw it has (removed by kernel 6): the loop over the remaining steps still costs a counter, a branch and
// address arithmetic because blockDim.x is only known at run time.
// Requirements: power-of-two blockDim.x >= 64 (128 here); any n; 64-bit element index.
// Source: Harris, "Optimizing Parallel Reduction in CUDA", Reduction #5 (reduce4); the shuffle form follows
// the cuda-samples `reduction` program after its Volta update.
// Harris's G80 figure (4M ints): 0.536 ms, 31.289 GB/s; step speed-up 1.80x, cumulative 15.01x.
#pragma once

#include "common/device/warp_reduce.cuh"
#include "handwritten/harris/03_first_add_during_load.cuh"

namespace redu::harris
{

// The last warp of kernels 5 to 7. Called by all 32 threads of warp 0 after a __syncthreads() that made
// sdata[0 .. 63] (the block's remaining 64 partials) visible; returns the block's result in every lane.
template <class T, class ReduceOp>
__device__ __forceinline__ T last_warp_reduce(const T* sdata, unsigned int tid, ReduceOp op)
{
  return warp_reduce(op(sdata[tid], sdata[tid + 32]), op, 32); // shuffles only, as the lesson shows
}

template <class T, class ReduceOp>
__global__ void reduce4(const T* __restrict__ in, T* __restrict__ out, std::int64_t n, ReduceOp op)
{
  T* sdata               = shared_array<T>();
  const unsigned int tid = threadIdx.x;
  sdata[tid]             = load_pair(in, n, blockDim.x, op);
  __syncthreads();

  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1)
  {
    if (tid < s)
    {
      sdata[tid] = op(sdata[tid], sdata[tid + s]);
    }
    __syncthreads();
  }

  if (tid < 32)
  {
    const T result = last_warp_reduce(sdata, tid, op);
    if (tid == 0)
    {
      out[blockIdx.x] = result;
    }
  }
}

} // namespace redu::harris
