// Lei Mao's batched reduce v2: one block of 256 threads per row, a strided per-thread loop into a
// register, then warp shuffles and one shared slot per warp.
//
// Idea: after the per-thread loop, each warp folds its 32 values with __shfl_down_sync (16, 8, 4, 2, 1;
// only lane 0 ends with the warp's value), lane 0 stores it in the warp's shared slot, and after a
// single __syncthreads every thread folds the 8 slots (all threads read the same address, a broadcast,
// so no bank conflicts); thread 0 writes the row's result.
// Flaw of v1 it removes: 8 block-wide barriers and 255 shared-memory round trips per row become one
// barrier and 8 slots. The post measured no speed-up (both at ~94% of an RTX 3090's peak): the
// reduction tree was never the bottleneck, the streaming loop is. On the H100 (cold L2, float sum) the
// same holds for long rows (3119 GB/s at 2048 x 262144, v1 3117), but with short rows the tree is most
// of the work and v2 is 1.3x v1 (1137 against 891 GB/s at 2^20 x 256, 42 against 33 at 2^25 x 8).
// Requirements: NumThreads a multiple of 32, at most 1024; any row length. The kernel is also the
// building block of the post's "Large Array Reduce Sum" (03, 04), so it takes the total element count
// (the last row may be shorter: the ragged tail of a reshaped array) and a Store that says what to do
// with a row's value (write it, or combine it atomically into one result).
// Source: Lei Mao, "CUDA Reduction" (2024), "Batched Reduce Sum": warp_reduce_sum,
// shared_data_reduce_sum_v2, block_reduce_sum_v2, batched_reduce_sum_v2, generalised from float sum to
// T and ReduceOp (identity instead of 0.0f).
#pragma once

#include "handwritten/leimao/batched_common.cuh"

namespace redu::leimao
{

// Only lane 0 holds the warp's value afterwards, as in the post (shuffle down, not butterfly).
template <class T, class ReduceOp>
__device__ __forceinline__ T warp_reduce_down(T value, ReduceOp op)
{
  constexpr unsigned int full_mask = 0xffffffffu;
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
  {
    value = op(value, __shfl_down_sync(full_mask, value, offset));
  }
  return value;
}

template <std::size_t NumWarps, class T, class ReduceOp>
__device__ __forceinline__ T shared_data_reduce_v2(const T* shared_data, ReduceOp op)
{
  T result = ReduceOp::template identity<T>();
#pragma unroll
  for (std::size_t i = 0; i < NumWarps; ++i)
  {
    result = op(result, shared_data[i]); // every thread reads slot i: a broadcast
  }
  return result;
}

// Writes a row's value to its own output element: the batched problem.
template <class T>
struct RowStore
{
  T* out;
  __device__ void operator()(std::size_t row, T value) const { out[row] = value; }
};

// Block b reduces row (first_row + b): elements [row * row_length, min(total, (row + 1) * row_length)).
template <std::size_t NumThreads, class T, class ReduceOp, class Store>
__global__ void __launch_bounds__(NumThreads)
    batched_reduce_v2(Store store, const T* __restrict__ input_data, std::size_t row_length, std::size_t total,
                      std::size_t first_row, ReduceOp op)
{
  static_assert(NumThreads % 32 == 0 && NumThreads <= 1024, "whole warps, at most 1024 threads");
  constexpr std::size_t num_warps = NumThreads / 32;
  __shared__ T shared_data[num_warps];
  const std::size_t row       = first_row + blockIdx.x;
  const std::size_t row_begin = row * row_length;
  const std::size_t row_size  = total - row_begin < row_length ? total - row_begin : row_length;

  T partial = thread_partial<NumThreads>(input_data + row_begin, row_size, op);
  partial   = warp_reduce_down(partial, op);
  if (threadIdx.x % 32 == 0)
  {
    shared_data[threadIdx.x / 32] = partial;
  }
  __syncthreads();
  const T block_result = shared_data_reduce_v2<num_warps>(shared_data, op);
  if (threadIdx.x == 0)
  {
    store(row, block_result);
  }
}

// One block of threads_per_batch threads per row; rows * row_length >= total > (rows - 1) * row_length,
// or total = 0 with empty rows.
template <class T, class ReduceOp, class Store>
Status launch_batched_v2(Store store, const T* in, std::int64_t rows, std::int64_t row_length, std::int64_t total,
                         cudaStream_t stream)
{
  return for_each_row_slice(rows, [&](std::int64_t first_row, unsigned int blocks) {
    batched_reduce_v2<threads_per_batch><<<blocks, threads_per_batch, 0, stream>>>(
        store, in, static_cast<std::size_t>(row_length), static_cast<std::size_t>(total),
        static_cast<std::size_t>(first_row), ReduceOp{});
  });
}

} // namespace redu::leimao
