// Segment bounds, the one interface every general-path kernel reads segments through: computed for
// equal rows, read from the offsets array for variable segments.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

namespace redu::segmented
{

struct EqualRows
{
  std::int64_t length;
  __device__ std::int64_t begin(std::int64_t s) const { return s * length; }
  __device__ std::int64_t end(std::int64_t s) const { return (s + 1) * length; }
};

struct OffsetArray
{
  const std::int64_t* offsets;
  __device__ std::int64_t begin(std::int64_t s) const { return __ldg(offsets + s); }
  __device__ std::int64_t end(std::int64_t s) const { return __ldg(offsets + s + 1); }
};

} // namespace redu::segmented
