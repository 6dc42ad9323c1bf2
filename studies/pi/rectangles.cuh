// The heights of the seed's rectangles, shared by every pi method so they all add the same numbers.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

namespace redu::pi
{

// The seed's arithmetic, kept on purpose: `float x = (i + 0.5) / n` divides in double (0.5 is a double
// literal) and rounds the midpoint to float; `4.0 / (1.0 + x*x)` squares in float and divides in double,
// then rounds the height to float. Only the index is widened to 64 bits (the seed's int i overflows past
// 2^31 rectangles).
__host__ __device__ inline float rectangle_height(std::int64_t i, std::int64_t n)
{
  const float x = static_cast<float>((static_cast<double>(i) + 0.5) / static_cast<double>(n));
  return static_cast<float>(4.0 / (1.0 + x * x));
}

// Height i, as a functor over a counting iterator (Thrust, CUB, the fused kernel).
struct RectangleHeight
{
  std::int64_t n;
  __host__ __device__ float operator()(std::int64_t i) const { return rectangle_height(i, n); }
};

} // namespace redu::pi
