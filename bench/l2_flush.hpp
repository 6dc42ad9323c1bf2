// The L2 flush that makes every timed call start cold: a kernel reads a buffer twice the size of L2,
// so the input is evicted and what is left in L2 is clean. A write flush (cudaMemset) also evicts the
// input, but leaves L2 full of dirty lines whose write-back then runs inside the next timed call and
// costs a memory-bound kernel 10-20% between 2^22 and 2^26 elements (measured on the H100).
#pragma once

#include "common/host/device_buffer.hpp"
#include "common/contract/status.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace redu::bench
{

class L2Flusher
{
public:
  Status init(std::int64_t l2_bytes);
  Status flush(cudaStream_t stream) const;

private:
  DeviceBuffer buffer_;
};

} // namespace redu::bench
