#include "l2_flush.hpp"

namespace redu::bench
{
namespace
{

// Reads the flush buffer with 16-byte loads. The store never happens (the buffer holds zeros), but
// the compiler cannot know that, so the loads stay.
__global__ void read_flush_kernel(const float4* __restrict__ buffer, std::int64_t count, float* sink)
{
  float acc = 0;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    const float4 v = buffer[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 1.0f)
  {
    *sink = acc;
  }
}

} // namespace

Status L2Flusher::init(std::int64_t l2_bytes)
{
  // Twice the L2 the device reports, whatever its size (the attribute, never a constant: L2s range from a
  // few MB to around a hundred); a device that reports none (0) gets 256 MiB rather than no flush at all.
  const std::int64_t flushed = l2_bytes > 0 ? 2 * l2_bytes : std::int64_t{256} << 20;
  REDU_TRY(buffer_.allocate(static_cast<std::size_t>(flushed) + sizeof(float4)));
  REDU_CUDA_TRY(cudaMemset(buffer_.data(), 0, buffer_.bytes()));
  // One flush now, on an idle GPU: a kernel's first launch loads it (CUDA's lazy loading), and the load
  // can wait for the kernels already running. The GPU clock queues each flush behind the kernel that
  // holds the stream (report/stream_blocker.hpp), which would then spin out its timeout: the first
  // cold row of a run without the floor's rows before it failed that way.
  REDU_TRY(flush(nullptr));
  REDU_CUDA_TRY(cudaDeviceSynchronize());
  return Status::success();
}

Status L2Flusher::flush(cudaStream_t stream) const
{
  const auto count = static_cast<std::int64_t>((buffer_.bytes() - sizeof(float4)) / sizeof(float4));
  auto* sink       = reinterpret_cast<float*>(static_cast<char*>(buffer_.data()) + count * sizeof(float4));
  read_flush_kernel<<<1024, 256, 0, stream>>>(static_cast<const float4*>(buffer_.data()), count, sink);
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

} // namespace redu::bench
