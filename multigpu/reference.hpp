// Host references for the tests and the benchmark's checks: what the hand-written all-reduce must
// produce, to the bit. Rank r's input is signed_pattern(seed_base + r, i); the sum is taken in rank
// order in float (bf16: each input widened, the float sum rounded once), as the kernels do.
#pragma once

#include "multigpu/pattern.hpp"

#include <cstdint>
#include <vector>

namespace redu::multigpu
{

inline std::vector<float> all_reduce_reference_f32(int world, std::int64_t count, std::uint32_t seed_base)
{
  std::vector<float> sum(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i)
  {
    float acc = signed_pattern(seed_base, i);
    for (int r = 1; r < world; ++r)
    {
      acc += signed_pattern(seed_base + static_cast<std::uint32_t>(r), i);
    }
    sum[static_cast<std::size_t>(i)] = acc;
  }
  return sum;
}

inline std::vector<std::uint16_t> all_reduce_reference_bf16(int world, std::int64_t count, std::uint32_t seed_base)
{
  std::vector<std::uint16_t> sum(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i)
  {
    float acc = bf16_to_float(bf16_round(signed_pattern(seed_base, i)));
    for (int r = 1; r < world; ++r)
    {
      acc += bf16_to_float(bf16_round(signed_pattern(seed_base + static_cast<std::uint32_t>(r), i)));
    }
    sum[static_cast<std::size_t>(i)] = bf16_round(acc);
  }
  return sum;
}

// The exact sum of unit_pattern(seed, 0 .. n-1), in long double (the sharded sum's reference).
inline long double unit_pattern_sum(std::int64_t n, std::uint32_t seed)
{
  long double sum = 0;
  for (std::int64_t i = 0; i < n; ++i)
  {
    sum += unit_pattern(seed, i);
  }
  return sum;
}

} // namespace redu::multigpu
