// Shared device building blocks: a warp reduction by butterfly shuffles and a block reduction
// built on it. Lesson kernels that teach these steps spell them out; everything else calls these.
#pragma once

#include <cuda_runtime.h>

namespace redu
{

// After the butterfly (xor) pattern every lane holds the warp's result, so no broadcast is needed.
// Shuffles move 32-bit registers; 64-bit types are split by the intrinsic's overloads.
template <class T, class ReduceOp>
__device__ __forceinline__ T warp_reduce(T value, ReduceOp op)
{
#pragma unroll
  for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2)
  {
    value = op(value, __shfl_xor_sync(0xffffffffu, value, lane_mask));
  }
  return value;
}

// Reduces one value per thread across a block of BlockThreads (a multiple of 32, at most 1024)
// threads. The result is valid in thread 0. Contains __syncthreads: call from all threads.
template <int BlockThreads, class T, class ReduceOp>
__device__ __forceinline__ T block_reduce(T value, ReduceOp op)
{
  static_assert(BlockThreads % 32 == 0 && BlockThreads <= 1024, "whole warps, at most 1024 threads");
  constexpr int warps = BlockThreads / 32;
  __shared__ T warp_results[warps];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;

  value = warp_reduce(value, op);
  if constexpr (warps == 1)
  {
    return value;
  }
  else
  {
    if (lane == 0)
    {
      warp_results[warp] = value;
    }
    __syncthreads();
    if (warp == 0)
    {
      value = (lane < warps) ? warp_results[lane] : ReduceOp::template identity<T>();
      value = warp_reduce(value, op);
    }
    return value;
  }
}

} // namespace redu
