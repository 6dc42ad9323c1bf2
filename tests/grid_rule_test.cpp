// Host-only tests of the modern family's grid rule (GridRule, shape_for in handwritten/modern/grid_shape.cuh):
// the arithmetic that turns an input size, the resident blocks and a GPU's tuned values into a grid. They
// run everywhere, CI included: no kernel is launched.
#include "handwritten/modern/grid_shape.cuh"

#include <gtest/gtest.h>

#include <cstdint>

namespace redu::test
{
namespace
{

using modern::GridRule;
using modern::LaunchShape;
using modern::shape_for;

constexpr int tile_packs = modern::block_threads * modern::unroll; // 2048 packs: 8192 floats, 32 KiB
constexpr std::int64_t resident = 528;                            // 132 SMs x 4 blocks of 256 threads

std::int64_t tiles_of_floats(std::int64_t n)
{
  return (n / 4 + 1 + tile_packs - 1) / tile_packs;
}

// Every tile has an owner, and the grid stays within the waves allowed and the family's max_grid.
void expect_well_formed(const LaunchShape& shape, std::int64_t n, const GridRule& rule)
{
  const std::int64_t tiles = tiles_of_floats(n);
  EXPECT_GE(static_cast<std::int64_t>(shape.blocks) * shape.tiles_per_block, tiles) << "n = " << n;
  EXPECT_LT(static_cast<std::int64_t>(shape.blocks - 1) * shape.tiles_per_block, tiles)
      << "n = " << n << ": a whole block without a tile";
  EXPECT_LE(shape.blocks, rule.waves * resident) << "n = " << n;
  EXPECT_LE(shape.blocks, modern::max_grid) << "n = " << n;
  EXPECT_GE(shape.blocks, 1);
}

TEST(GridRule, DefaultRuleGivesOneTilePerBlockUntilTheWavesAreFull)
{
  const GridRule rule; // 64 waves, one tile a block
  for (int log2 = 0; log2 <= 32; ++log2)
  {
    const std::int64_t n     = std::int64_t{1} << log2;
    const LaunchShape shape  = shape_for<float>(n, tile_packs, resident, rule);
    const std::int64_t tiles = tiles_of_floats(n);
    expect_well_formed(shape, n, rule);
    if (tiles <= rule.waves * resident)
    {
      EXPECT_EQ(shape.blocks, tiles) << "n = 2^" << log2;
      EXPECT_EQ(shape.tiles_per_block, 1) << "n = 2^" << log2;
    }
  }
  // 2^30 floats: 131073 tiles over at most 64 x 528 = 33792 blocks, so 4 tiles a block.
  EXPECT_EQ(shape_for<float>(std::int64_t{1} << 30, tile_packs, resident, rule).tiles_per_block, 4);
}

TEST(GridRule, TilesPerBlockKeepsAtLeastOneWave)
{
  const GridRule rule{64, 4};
  // 2^20 floats: 129 tiles, fewer than a wave: one block per tile, whatever the target.
  const LaunchShape small = shape_for<float>(std::int64_t{1} << 20, tile_packs, resident, rule);
  EXPECT_EQ(small.blocks, 129);
  EXPECT_EQ(small.tiles_per_block, 1);
  // 2^24 floats: 2049 tiles; the grid is sized for one wave, which 4 tiles a block fill (513 blocks).
  const LaunchShape at_l2 = shape_for<float>(std::int64_t{1} << 24, tile_packs, resident, rule);
  EXPECT_EQ(at_l2.tiles_per_block, 4);
  EXPECT_EQ(at_l2.blocks, 513);
  // 2^28 floats: 32769 tiles, about 4 a block: 8193 blocks, some 15 waves, below the 64 allowed.
  const LaunchShape large = shape_for<float>(std::int64_t{1} << 28, tile_packs, resident, rule);
  EXPECT_EQ(large.tiles_per_block, 4);
  EXPECT_EQ(large.blocks, 8193);
  for (int log2 = 0; log2 <= 32; ++log2)
  {
    const std::int64_t n = std::int64_t{1} << log2;
    expect_well_formed(shape_for<float>(n, tile_packs, resident, rule), n, rule);
  }
}

TEST(GridRule, OneWaveCapsTheGridWhateverTheTarget)
{
  for (const int tiles_per_block : {1, 2, 8, 1024})
  {
    const GridRule rule{1, tiles_per_block};
    const std::int64_t n    = std::int64_t{1} << 30;
    const LaunchShape shape = shape_for<float>(n, tile_packs, resident, rule);
    expect_well_formed(shape, n, rule);
    EXPECT_EQ(shape.blocks, shape_for<float>(n, tile_packs, resident, GridRule{1, 1}).blocks);
  }
}

TEST(GridRule, AnEmptyInputStillGetsOneBlock)
{
  const LaunchShape shape = shape_for<float>(0, tile_packs, resident, GridRule{64, 8});
  EXPECT_EQ(shape.blocks, 1);
  EXPECT_EQ(shape.tiles_per_block, 1);
}

} // namespace
} // namespace redu::test
