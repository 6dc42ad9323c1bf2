// The problem sizes and shapes every implementation is checked on.
#pragma once

#include "common/contract/problem.hpp"

#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace redu::test
{

// REDU_TEST_MAX_N caps the problem sizes (compute-sanitizer runs use it to stay within time).
inline std::int64_t max_test_n()
{
  const char* value = std::getenv("REDU_TEST_MAX_N");
  return value != nullptr ? std::strtoll(value, nullptr, 10) : INT64_MAX;
}

struct Shape
{
  std::string label;
  std::int64_t n        = 0;
  std::int64_t segments = 1;
  std::vector<std::int64_t> offsets; // segmented only: segments + 1 entries
  // Also checked with the input 1, 2 and 3 elements past an aligned address: shapes with ragged heads
  // and tails, where a vectorised kernel's unaligned path runs.
  bool misaligned = false;
};

// Marks the shapes labelled `labels` as also checked misaligned.
inline std::vector<Shape> misaligning(std::vector<Shape> shapes, const std::vector<std::string>& labels)
{
  for (Shape& shape : shapes)
  {
    for (const std::string& label : labels)
    {
      shape.misaligned = shape.misaligned || shape.label == label;
    }
  }
  return shapes;
}

// Edge sizes around warp, block and tile boundaries, a prime near 10^6, 2^20, 2^24 + 3, and random
// sizes that change every run. n = 0 means "write the identity" (as CUB does).
inline std::vector<Shape> full_shapes(std::mt19937_64& rng)
{
  std::vector<std::int64_t> sizes = {0,    1,    2,    31,    32,     33,      255,       256,           257,
                                     1023, 1024, 1025, 4095,  65537,  999983,  1 << 20,   (1 << 24) + 3};
  std::uniform_int_distribution<std::int64_t> small(3, 5000), large(5001, 3000000);
  sizes.push_back(small(rng));
  sizes.push_back(large(rng));
  sizes.push_back(large(rng));
  std::vector<Shape> shapes;
  for (std::int64_t n : sizes)
  {
    shapes.push_back({"n=" + std::to_string(n), n, 1, {}});
  }
  return misaligning(shapes, {"n=1025", "n=65537", "n=999983"});
}

// Equal rows, from one long row to many one-element rows. 33 x 8195: rows just over one 32 KiB tile of
// floats, three rows in four starting off a 16-byte boundary (segmented.adaptive's tiled rows). Rows of
// 1-8, 32, 64, 100, 256 and 333 elements take every lane count of argext.rows' short-row groups (1, 2,
// 4, 8, 16, 32 lanes). 1200 x 1027: more equal rows than 8 per SM of 132-SM GPUs, each longer than 512,
// so argext.rows gives each a warp that loops where the GPU's table raises "argext.equal_row_warp_max"
// to 1027 or more (argext_shape.cuh), and a block per row at the default (512).
inline std::vector<Shape> batched_shapes(std::mt19937_64& rng)
{
  std::vector<std::pair<std::int64_t, std::int64_t>> rows_by_length = {
    {1, 1}, {1, 1000003}, {1, 1 << 22}, {3, 1}, {7, 333}, {5, 0}, {64, 4097}, {2048, 256}, {1000, 1},
    {65536, 1}, {100000, 3}, {1 << 16, 8}, {1 << 14, 32}, {4096, 64}, {999, 100}, {2, 1 << 23}, {33, 8195},
    {1200, 1027}};
  std::uniform_int_distribution<std::int64_t> rows(1, 3000), length(1, 3000);
  rows_by_length.push_back({rows(rng), length(rng)});
  std::vector<Shape> shapes;
  for (auto [r, len] : rows_by_length)
  {
    shapes.push_back({std::to_string(r) + "x" + std::to_string(len), r * len, r, {}});
  }
  return misaligning(shapes, {"7x333", "64x4097", "33x8195", "1200x1027"});
}

// Segments of the given lengths, the first starting at `first_offset` (elements before it belong to no
// segment and are never read).
inline Shape segments_from_lengths(std::string label, const std::vector<std::int64_t>& lengths,
                                   std::int64_t first_offset = 0)
{
  Shape shape{std::move(label), 0, static_cast<std::int64_t>(lengths.size()), {first_offset}};
  for (std::int64_t len : lengths)
  {
    shape.offsets.push_back(shape.offsets.back() + len);
  }
  shape.n = shape.offsets.back();
  return shape;
}

// Variable segments, empty ones included.
inline std::vector<Shape> segmented_shapes(std::mt19937_64& rng)
{
  std::vector<Shape> shapes;
  shapes.push_back(segments_from_lengths("all-empty", std::vector<std::int64_t>(5, 0)));
  shapes.push_back(segments_from_lengths("one-long", {1000003}));
  shapes.push_back(segments_from_lengths("many-ones", std::vector<std::int64_t>(100000, 1)));

  std::vector<std::int64_t> mixed;
  std::uniform_real_distribution<double> coin(0, 1);
  std::uniform_int_distribution<std::int64_t> tiny(1, 40), medium(41, 20000);
  for (int i = 0; i < 20000; ++i)
  {
    const double c = coin(rng);
    mixed.push_back(c < 0.2 ? 0 : (c < 0.9 ? tiny(rng) : (c < 0.999 ? medium(rng) : 1 << 20)));
  }
  shapes.push_back(segments_from_lengths("mixed-with-empties", mixed));

  std::vector<std::int64_t> skewed;
  std::lognormal_distribution<double> lognormal(4.0, 2.0);
  for (int i = 0; i < 10000; ++i)
  {
    skewed.push_back(std::min<std::int64_t>(static_cast<std::int64_t>(lognormal(rng)), 1 << 22));
  }
  shapes.push_back(segments_from_lengths("lognormal", skewed));

  std::vector<std::int64_t> huge_then_tiny(1000, 3);
  huge_then_tiny.front() = (1 << 23) + 5;
  huge_then_tiny.back()  = 0;
  shapes.push_back(segments_from_lengths("huge-then-tiny", huge_then_tiny));

  // Enough long segments for a block each, one empty, and one far longer than the rest, which is split
  // over helper blocks (segmented.adaptive's block-per-segment launch); odd lengths misalign the starts.
  std::vector<std::int64_t> long_rows_one_huge(2048, 4099);
  long_rows_one_huge[1000] = (1 << 22) + 3;
  long_rows_one_huge[1001] = 0;
  shapes.push_back(segments_from_lengths("long-rows-one-huge", long_rows_one_huge));

  // A million empty segments, then one of 2^20 + 3: segments grouped by their average length give the
  // long one to the group chosen for the empty ones (one thread), whose chain of additions must still
  // meet the stated bound.
  std::vector<std::int64_t> empties_then_long(1000001, 0);
  empties_then_long.back() = (1 << 20) + 3;
  shapes.push_back(segments_from_lengths("empties-then-long", empties_then_long));

  // The first segment starts late: the elements before offsets[0] hold poison (correctness_test.cpp).
  shapes.push_back(segments_from_lengths("late-start", {5, 0, 70001, 1000, 3}, 777));
  return misaligning(shapes, {"mixed-with-empties", "lognormal", "late-start"});
}

} // namespace redu::test
