// The test and benchmark inputs, made the same way on the device (to fill buffers) and on the host (to
// compute references): a hash of (seed, index) turned exactly into a float, so the host knows every
// input bit without copying anything back. And bf16 rounding, written out once for both sides, so a
// bf16 reference computed on the host has the kernels' bits.
#pragma once

#include "multigpu/host_device.hpp"

#include <cstdint>
#include <cstring>

namespace redu::multigpu
{

// splitmix64's finaliser: every input bit moves every output bit.
REDU_HD inline std::uint64_t mix64(std::uint64_t x)
{
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A multiple of 2^-23 in [-1, 1), exact as a float: what each rank contributes to an all-reduce.
REDU_HD inline float signed_pattern(std::uint32_t seed, std::int64_t index)
{
  const std::uint64_t h = mix64((static_cast<std::uint64_t>(seed) << 40) ^ static_cast<std::uint64_t>(index));
  const std::int32_t k  = static_cast<std::int32_t>(h >> 40) - (1 << 23); // [-2^23, 2^23)
  return static_cast<float>(k) * (1.0f / 8388608.0f);
}

// A multiple of 2^-24 in [0, 1): the sharded sum's data, all positive like the accuracy study's, so
// rounding error grows with n as it does in real sums.
REDU_HD inline float unit_pattern(std::uint32_t seed, std::int64_t index)
{
  const std::uint64_t h = mix64((static_cast<std::uint64_t>(seed) << 40) ^ static_cast<std::uint64_t>(index));
  return static_cast<float>(static_cast<std::uint32_t>(h >> 40)) * (1.0f / 16777216.0f);
}

REDU_HD inline std::uint32_t float_bits(float value)
{
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// bf16 is the top half of a float: widening is exact.
REDU_HD inline float bf16_to_float(std::uint16_t bits)
{
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

// Round to nearest, ties to even (what __float2bfloat16_rn does); NaN stays a quiet NaN.
REDU_HD inline std::uint16_t bf16_round(float value)
{
  const std::uint32_t bits = float_bits(value);
  if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu) != 0)
  {
    return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);
  }
  return static_cast<std::uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

} // namespace redu::multigpu
