// The L2 flush that makes every timed call start cold.
#pragma once

#include "common/device_buffer.hpp"
#include "common/status.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace redu::bench
{

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
