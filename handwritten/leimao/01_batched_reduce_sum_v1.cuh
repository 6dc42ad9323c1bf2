// Lei Mao's batched reduce v1: one block of 256 threads per row, a strided per-thread loop into a
// register, then a shared-memory tree.
//
// Idea: a batch of rows needs no inter-block communication at all if each row gets its own block:
// block b folds row b with the loop in batched_common.cuh, writes one value per thread to shared
// memory and halves the active threads each step (sequential addressing, as Harris's reduce2), with a
// __syncthreads after every step; thread 0 writes the row's result.
// Flaw it removes: a single-array reduction's second pass; the batch itself provides the parallelism.
// Flaws it keeps (the post's point of departure for v2): log2(256) = 8 block-wide barriers per row,
// and one scalar load per thread per iteration.
// Requirements: NumThreads a power of two and a multiple of 32; any row length; rows beyond the grid
// limit are launched in slices.
// Measured (H100 80GB HBM3, cold L2, float sum): 3117 GB/s at the post's 2048 x 262144 (93% of the
// 3352 GB/s peak; the post: ~94% of an RTX 3090's), 3083 at 2048 x 2^17. With 2048 rows of 256
// threads the GPU holds every row at once and each thread's loop streams 512 loads, so the barriers are
// noise. The same kernel gets 10 GB/s at 1 x 2^28 (one block works) and 33 GB/s at 2^25 x 8 (each block
// loads 32 bytes, then pays 8 barriers): the shapes that motivate 03, 04 and segmented.adaptive.
// Source: Lei Mao, "CUDA Reduction" (2024), "Batched Reduce Sum": shared_data_reduce_sum_v1,
// block_reduce_sum_v1, batched_reduce_sum_v1, generalised from float sum to T and ReduceOp (identity
// instead of 0.0f).
#pragma once

#include "handwritten/leimao/batched_common.cuh"

namespace redu::leimao
{

template <std::size_t NumThreads, class T, class ReduceOp>
__device__ __forceinline__ T shared_data_reduce_v1(T* shared_data, ReduceOp op)
{
  static_assert(NumThreads % 32 == 0 && (NumThreads & (NumThreads - 1)) == 0,
                "NumThreads must be a power of two and a multiple of 32");
  const std::size_t thread_idx = threadIdx.x;
#pragma unroll
  for (std::size_t stride = NumThreads / 2; stride > 0; stride /= 2)
  {
    if (thread_idx < stride)
    {
      shared_data[thread_idx] = op(shared_data[thread_idx], shared_data[thread_idx + stride]);
    }
    __syncthreads();
  }
  return shared_data[0];
}

// Block b reduces row (first_row + b) of `num_elements_per_batch` elements; first_row is non-zero only
// for batches of more than 2^31 - 1 rows, which are launched in slices.
template <std::size_t NumThreads, class T, class ReduceOp>
__global__ void __launch_bounds__(NumThreads)
    batched_reduce_v1(T* __restrict__ output_data, const T* __restrict__ input_data, std::size_t num_elements_per_batch,
                      std::size_t first_row, ReduceOp op)
{
  __shared__ T shared_data[NumThreads];
  const std::size_t row = first_row + blockIdx.x;
  shared_data[threadIdx.x] =
      thread_partial<NumThreads>(input_data + row * num_elements_per_batch, num_elements_per_batch, op);
  __syncthreads();
  const T block_result = shared_data_reduce_v1<NumThreads>(shared_data, op);
  if (threadIdx.x == 0)
  {
    output_data[row] = block_result;
  }
}

} // namespace redu::leimao
