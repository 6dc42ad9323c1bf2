// The equal-rows fast path: rows of a power-of-two number of 16-byte vectors (up to 4 KiB) reduced by
// warp-wide tiles of coalesced loads and butterfly shuffles within each row's lanes.
#pragma once

#include "common/device/vector_load.cuh"
#include "common/device/warp_reduce.cuh"
#include "handwritten/segmented/segmented_shape.cuh"

#include <cstdint>
#include <cuda_runtime.h>

namespace redu::segmented
{
// Unnamed, as in the single file this came from: these kernels are private to adaptive_segmented.cu, the
// one file that includes this header, and keep internal linkage (DESIGN.md, 'internal linkage').
namespace
{

// Equal rows of 2^k vectors, k <= log2(32 * unroll), 16-byte aligned: the benchmark's many-row shapes.
//
// Mapping: a warp takes a tile of 32 x unroll consecutive vectors, one coalesced 512-byte load per
// unroll step, all issued before any is used. A row is 2^k consecutive vectors, so rows never straddle
// tiles and each load step holds whole rows (2^k <= 32: groups of 2^k lanes, folded by 2^k-wide butterfly
// shuffles) or a 1 / (2^k / 32) slice of one row (2^k > 32: warp-wide butterflies, then the steps of
// the row folded in order). Tiny rows thus keep 8 loads in flight per thread where a thread or a warp
// per row would keep one, and no row waits on a block-wide barrier.
template <class T, class ReduceOp>
__global__ void __launch_bounds__(block_threads) reduce_pow2_rows(const T* __restrict__ in, T* __restrict__ out,
                                                                  std::int64_t rows, int log2_row_vectors, ReduceOp op)
{
  using P                       = Pack<T>;
  const T identity              = ReduceOp::template identity<T>();
  const int lane                = threadIdx.x % 32;
  const int row_vectors         = 1 << log2_row_vectors;
  const int lanes_per_row       = row_vectors < 32 ? row_vectors : 32;
  const int steps_per_row       = row_vectors > 32 ? row_vectors / 32 : 1; // divides unroll
  const std::int64_t total      = rows << log2_row_vectors;
  const std::int64_t tiles      = (total + 32 * unroll - 1) / (32 * unroll);
  const std::int64_t warp_count = static_cast<std::int64_t>(gridDim.x) * warps_per_block;
  const P* v                    = reinterpret_cast<const P*>(in);

  for (std::int64_t tile = blockIdx.x * warps_per_block + threadIdx.x / 32; tile < tiles; tile += warp_count)
  {
    const std::int64_t first = tile * 32 * unroll;
    P x[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
    {
      const std::int64_t i = first + u * 32 + lane;
      x[u]                 = i < total ? ReadOnlyLoad{}.vector(v + i) : splat(identity);
    }
    T row_value = identity;
#pragma unroll
    for (int u = 0; u < unroll; ++u)
    {
      const T value = warp_reduce(fold_pack(x[u], op), op, lanes_per_row);
      row_value     = (u & (steps_per_row - 1)) == 0 ? value : op(row_value, value);
      if (((u + 1) & (steps_per_row - 1)) == 0)
      {
        const std::int64_t row = (first + (u + 1 - steps_per_row) * 32 + lane) >> log2_row_vectors;
        if (lane % lanes_per_row == 0 && row < rows)
        {
          out[row] = row_value;
        }
      }
    }
  }
}

} // namespace
} // namespace redu::segmented
