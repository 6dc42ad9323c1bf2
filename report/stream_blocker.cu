#include "report/stream_blocker.hpp"

#include <cstdint>

namespace redu::report
{
namespace
{

// Long enough for any queue of work the host enqueues behind the kernel (microseconds), short enough
// that a call which waits on the host fails within seconds instead of hanging the benchmark.
constexpr std::uint64_t timeout_ns = 2'000'000'000;

__device__ std::uint64_t global_ns()
{
  std::uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

__global__ void hold_stream(const volatile int* flag, volatile int* timed_out)
{
  const std::uint64_t start = global_ns();
  while (*flag == 0)
  {
    if (global_ns() - start > timeout_ns)
    {
      *timed_out = 1;
      return;
    }
    __nanosleep(1000);
  }
}

} // namespace

StreamBlocker::~StreamBlocker()
{
  if (flag_ != nullptr)
  {
    cudaFreeHost(const_cast<int*>(flag_));
  }
}

Status StreamBlocker::init()
{
  int* words = nullptr;
  REDU_CUDA_TRY(cudaHostAlloc(&words, 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  flag_      = words;
  timed_out_ = words + 1;
  REDU_CUDA_TRY(cudaHostGetDevicePointer(&device_words_, words, 0));
  return Status::success();
}

Status StreamBlocker::block(cudaStream_t stream)
{
  *flag_      = 0;
  *timed_out_ = 0;
  hold_stream<<<1, 1, 0, stream>>>(device_words_, device_words_ + 1);
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

void StreamBlocker::release()
{
  *flag_ = 1;
}

Status StreamBlocker::check() const
{
  if (*timed_out_ != 0)
  {
    return Status::invalid("the stream was held longer than the GPU-clock timeout: the timed call waited on the "
                           "host (it synchronises), so it has no GPU-only time");
  }
  return Status::success();
}

} // namespace redu::report
