// The floor: for a given number of bytes, the fastest single launch that reads every one of them and
// does nothing else worth the name (16-byte loads, XOR into a register, one word per warp written,
// nothing combined). Any reduction reads the same bytes and does more, so its time can approach the
// floor and never beat it: a row faster than its floor means the floor is not tuned hard enough.
//
// "Tuned as hard as any contender": every launch shape below is timed for each byte count, clock and
// L2 state, and the fastest is the floor there. The shapes span what the project's kernels choose from:
//   threads per block    128, 256, 512, 1024
//   loads in flight      1, 2, 4, 8 sixteen-byte loads issued per thread before any is used
//   grid                 tiles (one block per threads x loads packs, each thread one round) or
//                        resident (as many blocks as fit on the GPU at once, looping over the input)
//   load policy          read-only path, or streaming with L2 evict_first / evict_normal
//                        (common/device/vector_load.cuh, the policies the tuned kernels use), where the GPU
//                        and the code compiled for it have L2 hints (sm_80 and later)
// The resident grids and the SM count come from the device (occupancy API, attributes), so a GPU that has
// never been measured gets its own floor without a table.
// Napkin math: 2^30 floats are 4.29 GB; at the H100's 3.35 TB/s peak that is 1.28 ms, at the H200's
// 4.8 TB/s 0.89 ms. The empty launch (one block, no work) is the other floor: what any call costs.
#pragma once

#include "common/contract/status.hpp"
#include "common/host/device_buffer.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace redu::bench
{

enum class FloorLoad
{
  read_only,
  evict_first,
  evict_normal
};

struct FloorShape
{
  int threads          = 256;
  int loads_per_thread = 4;
  bool resident_grid   = false;
  FloorLoad load       = FloorLoad::read_only;
  std::string name() const; // "256x4/tiles/read_only"
};

class FloorKernels
{
public:
  // Every shape of the search, with the resident grid sized by the occupancy API for this GPU, and the
  // output words for reads of up to `max_bytes` (allocated here: never inside a timed call).
  Status init(int sm_count, std::size_t max_bytes);
  const std::vector<FloorShape>& shapes() const { return shapes_; }

  // Enqueues one read of `bytes` at `input` (16-byte aligned) in `shape`.
  Status read(const FloorShape& shape, const void* input, std::size_t bytes, cudaStream_t stream);
  // Enqueues the empty launch: one block of one warp that does nothing.
  Status empty(cudaStream_t stream) const;

  // What a read leaves behind, for the test that it reads every byte once (tests/floor_test.cpp): the
  // number of warps its launch of `bytes` in `shape` has, each of which wrote one word.
  Status warps_of(const FloorShape& shape, std::size_t bytes, std::int64_t& warps) const;
  const DeviceBuffer& warp_words() const { return warp_words_; }

private:
  int sm_count_ = 0;
  std::vector<FloorShape> shapes_;
  DeviceBuffer warp_words_; // one word per warp of the largest grid: the reads' only output
};

} // namespace redu::bench
