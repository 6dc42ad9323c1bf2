// Reducing one value per thread across a block: each warp folds its lanes, one shared slot per warp
// holds the results, and warp 0 folds the slots. The same for groups of whole warps inside a block
// (group_reduce), where the group's first thread folds its warps' slots.
#pragma once

#include "common/device/warp_reduce.cuh"

#include <cuda_runtime.h>

namespace redu
{

// Reduces one value per thread across a block of BlockThreads (a multiple of 32, at most 1024) threads;
// the result is valid in thread 0. Contains __syncthreads: call from all threads. Two calls with the same
// types in one kernel share the slots, so a __syncthreads() must separate them.
template <int BlockThreads, class T, class ReduceOp> __device__ __forceinline__ T block_reduce(T value, ReduceOp op)
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
      value = lane < warps ? warp_results[lane] : ReduceOp::template identity<T>();
      value = warp_reduce(value, op);
    }
    return value;
  }
}

// Reduces one value per thread across each group of GroupThreads consecutive threads (whole warps, fewer
// than the block's BlockThreads): each warp folds its lanes, its lane 0 writes one slot, and the group's
// first thread folds the group's slots in order. The result is valid in each group's rank 0. Contains
// __syncthreads: call from all threads of the block.
template <int GroupThreads, int BlockThreads, class T, class ReduceOp>
__device__ __forceinline__ T group_reduce(T value, ReduceOp op)
{
  static_assert(GroupThreads % 32 == 0 && GroupThreads < BlockThreads && BlockThreads % GroupThreads == 0,
                "whole warps, a divisor of the block, fewer than the block");
  __shared__ T warp_results[BlockThreads / 32];
  value = warp_reduce(value, op);
  if (threadIdx.x % 32 == 0)
  {
    warp_results[threadIdx.x / 32] = value;
  }
  __syncthreads();
  if (threadIdx.x % GroupThreads == 0)
  {
    const int first = threadIdx.x / 32;
    for (int w = 1; w < GroupThreads / 32; ++w)
    {
      value = op(value, warp_results[first + w]);
    }
  }
  return value;
}

} // namespace redu
