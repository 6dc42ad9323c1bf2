// Where row r starts and ends: equal rows by arithmetic (batched), segments by their offsets. The row
// kernels are written once against either.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

namespace redu::argext
{

struct RowBounds
{
  std::int64_t begin;
  std::int64_t end;
};

// Batched: row r is [r x length, (r + 1) x length); no memory read.
struct EqualRows
{
  std::int64_t length;
  __device__ __forceinline__ RowBounds operator()(std::int64_t r) const { return {r * length, (r + 1) * length}; }
};

// Segmented: row r is [offsets[r], offsets[r + 1]); two 8-byte reads, shared with the neighbour rows.
struct OffsetRows
{
  const std::int64_t* offsets;
  __device__ __forceinline__ RowBounds operator()(std::int64_t r) const { return {offsets[r], offsets[r + 1]}; }
};

} // namespace redu::argext
