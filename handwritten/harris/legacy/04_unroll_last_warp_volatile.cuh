// HISTORICAL EXHIBIT (registered with Role::exhibit: reached by name, never in the study's registry),
// A DATA RACE ON VOLTA AND LATER (sm_70+).
//
// Harris's kernel 5 (reduce4) as published in "Optimizing Parallel Reduction in CUDA" (2007), Reduction
// #5, float and `+` only, as in his slides. Its last warp updates shared memory through a `volatile`
// pointer with no barrier between steps, relying on the 32 threads of a warp executing each statement in
// lockstep. `volatile` only keeps the compiler from caching sdata in registers; it orders nothing between
// threads. Since Volta, threads of a warp are scheduled independently: lane t may read sdata[t + 16] before
// lane t + 16 has stored its previous step, or after it stored the next one. The programming guide
// (section on independent thread scheduling) names this pattern as unsafe; compute-sanitizer's racecheck
// reports it. The fix is either __syncwarp() between every read and write of each step, or shuffles, as in
// the registered handwritten/harris/04_unroll_last_warp.cuh.
// Tail handling (n not a multiple of 256) is added so the exhibit runs on the same inputs as the rest.
#pragma once

#include "handwritten/harris/multi_pass_driver.cuh"

namespace redu::harris::legacy
{

// Harris's warpReduce, verbatim apart from the name. Requires blockDim.x >= 64.
inline __device__ void volatile_warp_reduce(volatile float* sdata, unsigned int tid)
{
  sdata[tid] += sdata[tid + 32];
  sdata[tid] += sdata[tid + 16];
  sdata[tid] += sdata[tid + 8];
  sdata[tid] += sdata[tid + 4];
  sdata[tid] += sdata[tid + 2];
  sdata[tid] += sdata[tid + 1];
}

// `static`: this header has one includer, the registration in 04_unroll_last_warp_volatile.cu.
static __global__ void volatile_reduce4(const float* in, float* out, std::int64_t n, SumOp)
{
  float* sdata           = shared_array<float>();
  const unsigned int tid = threadIdx.x;
  const std::int64_t i   = static_cast<std::int64_t>(blockIdx.x) * (blockDim.x * 2) + tid;
  float sum              = i < n ? in[i] : 0.0f;
  if (i + blockDim.x < n)
  {
    sum += in[i + blockDim.x];
  }
  sdata[tid] = sum;
  __syncthreads();

  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1)
  {
    if (tid < s)
    {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }

  if (tid < 32)
  {
    volatile_warp_reduce(sdata, tid);
  }
  if (tid == 0)
  {
    out[blockIdx.x] = sdata[0];
  }
}

} // namespace redu::harris::legacy
