#include "common/contract/offsets_check.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

namespace redu
{
namespace
{

constexpr int check_threads = 256;

// Position i is bad when offsets[i] < offsets[i - 1] (i >= 1), or offsets[0] < 0, or the last offset
// differs from n. The smallest bad position wins, so the message names the first problem.
__global__ void find_first_bad_offset(const std::int64_t* offsets, std::int64_t segments, std::int64_t n,
                                      unsigned long long* first_bad)
{
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i <= segments; i += stride)
  {
    const std::int64_t value = offsets[i];
    const bool bad = (i == 0 ? value < 0 : value < offsets[i - 1]) || (i == segments && value != n);
    if (bad)
    {
      atomicMin(first_bad, static_cast<unsigned long long>(i));
    }
  }
}

} // namespace

Status check_offsets(const Problem& p, cudaStream_t stream)
{
  // The check synchronises, which a stream capturing a CUDA graph cannot do: refuse before touching it.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  REDU_CUDA_TRY(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone)
  {
    return Status::invalid("checking segment offsets synchronises the stream, so it cannot be captured into a "
                           "CUDA graph; check them before capturing and pass OffsetsCheck::trust");
  }
  const std::int64_t entries = p.segments + 1;
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((entries + check_threads - 1) / check_threads, 4096));

  // A stream-ordered 8-byte allocation: no device-wide synchronisation, safe for concurrent callers.
  unsigned long long* first_bad = nullptr;
  REDU_CUDA_TRY(cudaMallocAsync(reinterpret_cast<void**>(&first_bad), sizeof(*first_bad), stream));
  unsigned long long host_first_bad = ULLONG_MAX;
  cudaError_t error = cudaMemsetAsync(first_bad, 0xFF, sizeof(*first_bad), stream); // ULLONG_MAX: none found
  if (error == cudaSuccess)
  {
    find_first_bad_offset<<<blocks, check_threads, 0, stream>>>(p.offsets, p.segments, p.n, first_bad);
    error = cudaPeekAtLastError();
  }
  if (error == cudaSuccess)
  {
    error = cudaMemcpyAsync(&host_first_bad, first_bad, sizeof(host_first_bad), cudaMemcpyDeviceToHost, stream);
  }
  const cudaError_t freed = cudaFreeAsync(first_bad, stream);
  if (error == cudaSuccess)
  {
    error = cudaStreamSynchronize(stream);
  }
  REDU_CUDA_TRY(error);
  REDU_CUDA_TRY(freed);
  if (host_first_bad == ULLONG_MAX)
  {
    return Status::success();
  }

  // Error path only: fetch the values around the first bad position for the message.
  const auto i = static_cast<std::int64_t>(host_first_bad);
  std::int64_t values[2] = {0, 0};
  const std::int64_t first = i == 0 ? 0 : i - 1;
  REDU_CUDA_TRY(cudaMemcpy(values, p.offsets + first, (i == 0 ? 1 : 2) * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  const std::string at = "offsets[" + std::to_string(i) + "] = ";
  if (i == 0 && values[0] < 0)
  {
    return Status::invalid("segment offsets: " + at + std::to_string(values[0]) + " is negative");
  }
  if (i > 0 && values[1] < values[0])
  {
    return Status::invalid("segment offsets decrease: offsets[" + std::to_string(i - 1) + "] = " + std::to_string(values[0])
                           + " > " + at + std::to_string(values[1]));
  }
  return Status::invalid("segment offsets: the last one, " + at + std::to_string(values[i == 0 ? 0 : 1])
                         + ", must equal n = " + std::to_string(p.n));
}

} // namespace redu
