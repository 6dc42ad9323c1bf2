// Fresh random benchmark inputs, generated on the device (host generation of 2^30 values would take
// longer than the whole sweep), and the L2 flush that makes every timed call start cold.
#pragma once

#include "common/device_buffer.hpp"
#include "common/problem.hpp"
#include "common/status.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace redu::bench
{

// Integers in [-100, 100], floats uniform in [-1, 1): never zeros or constants.
Status fill_random(DType dtype, void* data, std::int64_t n, std::uint64_t seed, cudaStream_t stream);

// Writes a buffer twice the size of L2, evicting whatever the previous call left there.
class L2Flusher
{
public:
  Status init(std::int64_t l2_bytes);
  Status flush(cudaStream_t stream) const;

private:
  DeviceBuffer buffer_;
};

} // namespace redu::bench
