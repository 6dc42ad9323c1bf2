// The floor (bench/floor.hpp) is what every row's pct_floor is measured against, so it must do the
// work it claims: read every byte of the input exactly once, in every launch shape of its search. Each
// warp writes the XOR of what its lanes read; the XOR of all those words must equal the XOR of the input
// (its 32-bit words, then its tail bytes one by one). A skipped pack changes it, and so does a pack read
// twice (random data: its two reads cancel).
#include "support/gpu.hpp"
#include "support/run_helpers.hpp"

#include "bench/floor.hpp"
#include "common/host/device_info.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

namespace redu::test
{
namespace
{

// What the floor kernels compute: 32-bit words of the 16-byte packs XORed, then each tail byte.
unsigned expected_xor(const std::vector<unsigned char>& bytes)
{
  const std::size_t pack_bytes = bytes.size() / 16 * 16;
  unsigned acc                 = 0;
  for (std::size_t i = 0; i < pack_bytes; i += 4)
  {
    unsigned word;
    std::memcpy(&word, bytes.data() + i, 4);
    acc ^= word;
  }
  for (std::size_t i = pack_bytes; i < bytes.size(); ++i)
  {
    acc ^= bytes[i];
  }
  return acc;
}

TEST(Floor, EveryShapeReadsEveryByteOnce)
{
  REDU_REQUIRE_GPU();
  DeviceInfo info;
  ASSERT_OK(query_device(0, info));
  std::mt19937 rng(2026);
  // A single pack, a ragged tail, more packs than one round of the largest tile, and a size that leaves
  // a resident grid looping several times.
  for (const std::size_t bytes : {std::size_t{16}, std::size_t{4096 + 13}, std::size_t{(1 << 20) + 7},
                                  std::size_t{(16 << 20) + 16}})
  {
    std::vector<unsigned char> host(bytes);
    for (unsigned char& b : host)
    {
      b = static_cast<unsigned char>(rng());
    }
    DeviceBuffer input;
    ASSERT_OK(upload(host, input));
    bench::FloorKernels floor;
    ASSERT_OK(floor.init(info.sm_count, bytes));
    const unsigned expected = expected_xor(host);
    for (const bench::FloorShape& shape : floor.shapes())
    {
      SCOPED_TRACE(shape.name() + ", " + std::to_string(bytes) + " bytes");
      std::int64_t warps = 0;
      ASSERT_OK(floor.warps_of(shape, bytes, warps));
      ASSERT_OK(floor.read(shape, input.data(), bytes, nullptr));
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<unsigned> words(static_cast<std::size_t>(warps));
      ASSERT_EQ(cudaMemcpy(words.data(), floor.warp_words().data(), words.size() * sizeof(unsigned),
                           cudaMemcpyDeviceToHost),
                cudaSuccess);
      unsigned got = 0;
      for (unsigned w : words)
      {
        got ^= w;
      }
      EXPECT_EQ(got, expected);
    }
  }
}

} // namespace
} // namespace redu::test
