// Equal rows of at least one tile (Kind::batched): every tile of every row is a block of its own, as in
// the modern family's full-array kernels, and a second launch folds each row's tile partials in order.
//
// Why: with rows fewer than the blocks a GPU holds, a block per row leaves SMs idle, and the general
// path's dynamically claimed pieces (big_and_medium.cuh) cost a classifying launch and a claim per four
// chunks; both read below CUB 3.5's fixed-size segmented reduce on few long rows, as Lei Mao's v2 (a
// block per row, strided) did on 2048 long rows (DESIGN.md). A full array is one row: the same tiles
// match CUB's DeviceReduce there (modern.vec_two_pass), so rows should too.
// Napkin math, 1 GiB of floats: 32768 tiles of 32 KiB; the partials are 128 KiB (1/8192 of the input),
// and one block folds a row's in four rounds of loads. At 3.35 TB/s (H100) the read takes 320 us, at
// 4.8 TB/s (H200) 224 us.
// Deterministic, gpu_to_gpu: a row's tiles depend only on its length and its address modulo 16 (never on
// the device's block count), and its partials are folded in tile order.
#pragma once

#include "common/contract/status.hpp"
#include "common/device/l2_policy.cuh"
#include "common/device/range_fold.cuh"
#include "handwritten/segmented/dependent_launch.cuh"
#include "handwritten/segmented/segmented_shape.cuh"

#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

namespace redu::segmented
{

// A tile: one round of loads of a block, the same 32 KiB as a chunk of the big segments.
inline constexpr std::int64_t row_tile_vectors = static_cast<std::int64_t>(block_threads) * unroll;
static_assert(row_tile_vectors == chunk_vectors, "the partials fit the piece slots, which count chunks");

// Tiles of a row of `length` elements: its 16-byte packs number at most length / pack_size, whatever the
// row's alignment (fold_tiles peels the head first), and tile 0 also takes the head and the tail.
template <class T> std::int64_t tiles_per_row(std::int64_t length)
{
  const std::int64_t packs = length / pack_size<T>;
  const std::int64_t tiles = (packs + row_tile_vectors - 1) / row_tile_vectors;
  return tiles < 1 ? 1 : tiles;
}

// First launch: block b folds tile b % tiles of row b / tiles into partials[b].
template <class T, class ReduceOp>
__global__ void __launch_bounds__(block_threads)
    reduce_row_tiles(const T* __restrict__ in, std::int64_t row_length, std::int64_t tiles, T* __restrict__ partials,
                     bool evict_first, ReduceOp op)
{
  allow_dependent_launch();
  const std::int64_t block = blockIdx.x;
  const std::int64_t row   = block / tiles;
  const T value = block_fold<block_threads, unroll>(in + row * row_length, row_length, block % tiles, 1,
                                                    StreamingLoad(evict_first), op);
  if (threadIdx.x == 0)
  {
    partials[block] = value;
  }
}

// Second launch: block r folds row r's partials, in tile order.
template <class T, class ReduceOp>
__global__ void __launch_bounds__(block_threads)
    fold_row_partials(const T* partials, std::int64_t tiles, T* __restrict__ out, ReduceOp op)
{
  wait_for_first_launch();
  // Written by the first launch: the coherent path, never the read-only one.
  const T value = block_fold_all<block_threads, unroll>(partials + blockIdx.x * tiles, tiles, CoherentLoad{}, op);
  if (threadIdx.x == 0)
  {
    out[blockIdx.x] = value;
  }
}

// `rows` rows of `row_length` elements into out[rows]; `partials` holds rows x tiles_per_row values.
template <class T, class ReduceOp>
Status launch_tiled_rows(const T* in, T* out, std::int64_t rows, std::int64_t row_length, T* partials,
                         cudaStream_t stream)
{
  const std::int64_t tiles = tiles_per_row<T>(row_length);
  bool evict_first         = false;
  REDU_TRY(input_evict_first<T>(rows * row_length, evict_first));
  reduce_row_tiles<T, ReduceOp><<<static_cast<unsigned>(rows * tiles), block_threads, 0, stream>>>(
      in, row_length, tiles, partials, evict_first, ReduceOp{});
  REDU_CUDA_TRY(cudaPeekAtLastError());

  // The fold as a programmatic dependent, as launch_second() in big_and_medium.cuh: its launch latency
  // overlaps the first launch's last wave.
  return launch_dependent(fold_row_partials<T, ReduceOp>, static_cast<unsigned>(rows), block_threads, stream,
                          static_cast<const T*>(partials), tiles, out, ReduceOp{});
}

} // namespace redu::segmented
