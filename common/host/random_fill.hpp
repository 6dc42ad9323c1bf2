// Counter-based random values: element i of a stream depends only on (seed, i), so the device can fill
// billions of elements in parallel and the host can recompute any of them for a reference.
#pragma once

#include "common/contract/problem.hpp"
#include "common/contract/status.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace redu
{

// SplitMix64 (Steele, Lea, Flood 2014): a full-period mix of a 64-bit counter.
__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Integers in [-100, 100], floats uniform in [-1, 1): never zeros or constants. Halves (bf16, f16) are
// that double rounded to nearest once, so the host recomputes the same bits.
template <class T>
__host__ __device__ inline T random_element(std::uint64_t seed, std::int64_t i)
{
  const std::uint64_t bits = splitmix64(seed ^ static_cast<std::uint64_t>(i));
  if constexpr (std::is_integral_v<T>)
  {
    return static_cast<T>(static_cast<std::int64_t>(bits % 201) - 100);
  }
  else
  {
    return static_cast<T>(static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0);
  }
}

// Fills data[0, n) with random_element<T>(seed, i) on `stream`.
Status fill_random(DType dtype, void* data, std::int64_t n, std::uint64_t seed, cudaStream_t stream);

} // namespace redu
