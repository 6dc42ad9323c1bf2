// What Lei Mao's batched kernels share: the launch shape (one block of 256 threads per batch row), the
// per-thread strided loop that folds a row into registers, and a launcher that keeps every grid under
// the hardware's limit of 2^31 - 1 blocks by launching consecutive slices of rows.
// Source: Lei Mao, "CUDA Reduction" (2024), section "Batched Reduce Sum" (block_reduce_sum_v1/v2).
#pragma once

#include "common/contract/ops.cuh"
#include "common/contract/status.hpp"

#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

namespace redu::leimao
{

// The post's NUM_THREADS_PER_BATCH: one block of 256 threads reduces one row.
constexpr std::size_t threads_per_batch = 256;

// The post's loop, generalised from `sum += x` starting at 0.0f to any operator starting at its identity.
// Thread t folds elements t, t + NumThreads, t + 2 * NumThreads, ... of the row: one 4- or 8-byte load
// per iteration, coalesced across the block. The bound check stays inside the loop, as published, so
// rows of any length work.
template <std::size_t NumThreads, class T, class ReduceOp>
__device__ __forceinline__ T thread_partial(const T* __restrict__ row, std::size_t num_elements, ReduceOp op)
{
  const std::size_t num_elements_per_thread = (num_elements + NumThreads - 1) / NumThreads;
  const std::size_t thread_idx              = threadIdx.x;
  T partial                                 = ReduceOp::template identity<T>();
  for (std::size_t i = 0; i < num_elements_per_thread; ++i)
  {
    const std::size_t offset = thread_idx + i * NumThreads;
    if (offset < num_elements)
    {
      partial = op(partial, row[offset]);
    }
  }
  return partial;
}

// Launches `launch(first_row, blocks)` for consecutive slices of at most 2^31 - 1 rows, so a batch of
// any size runs with one block per row as the post intends (a single launch in every practical case).
template <class Launch>
Status for_each_row_slice(std::int64_t rows, Launch&& launch)
{
  constexpr std::int64_t max_blocks = 2147483647;
  for (std::int64_t first = 0; first < rows; first += max_blocks)
  {
    const std::int64_t count = rows - first < max_blocks ? rows - first : max_blocks;
    launch(first, static_cast<unsigned int>(count));
    REDU_CUDA_TRY(cudaPeekAtLastError());
  }
  return Status::success();
}

} // namespace redu::leimao
