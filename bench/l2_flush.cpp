#include "l2_flush.hpp"

namespace redu::bench
{

Status L2Flusher::init(std::int64_t l2_bytes)
{
  return buffer_.allocate(static_cast<std::size_t>(2 * l2_bytes));
}

Status L2Flusher::flush(cudaStream_t stream) const
{
  REDU_CUDA_TRY(cudaMemsetAsync(buffer_.data(), 0x5a, buffer_.bytes(), stream));
  return Status::success();
}

} // namespace redu::bench
