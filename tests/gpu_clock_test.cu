// The GPU clock (report/event_timer.hpp) holds the stream with a kernel until the host releases it.
// A timed call that waits on the host would then wait for the kernel that waits for it: the kernel gives
// up after its timeout, and the timer must report that as an error, not hang and not return a time.
#include "support/gpu.hpp"
#include "support/run_helpers.hpp"

#include "report/event_timer.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace redu::test
{
namespace
{

__global__ void touch(int* word)
{
  *word += 1;
}

TEST(GpuClock, TimesACallThatDoesNotWaitOnTheHost)
{
  REDU_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  DeviceBuffer word;
  ASSERT_OK(word.allocate(sizeof(int)));
  ASSERT_EQ(cudaMemset(word.data(), 0, sizeof(int)), cudaSuccess); // touch reads it (initcheck)
  report::EventTimer timer;
  ASSERT_OK(timer.init());
  std::vector<double> samples;
  const auto call = [&]() -> Status {
    touch<<<1, 1, 0, stream>>>(word.as<int>());
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  };
  ASSERT_OK(timer.time_calls(stream, 1, 5, call, samples, nullptr, report::Clock::gpu));
  ASSERT_EQ(samples.size(), 5u);
  for (double ms : samples)
  {
    EXPECT_GT(ms, 0.0);
    EXPECT_LT(ms, 100.0) << "a one-thread kernel took " << ms << " ms: the held stream was not released";
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST(GpuClock, RefusesACallThatWaitsOnTheHost)
{
  REDU_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  report::EventTimer timer;
  ASSERT_OK(timer.init());
  std::vector<double> samples;
  // Synchronising the held stream waits for the holding kernel, which waits for the host: only the
  // kernel's timeout ends it.
  const auto waits_on_host = [&]() -> Status {
    REDU_CUDA_TRY(cudaStreamSynchronize(stream));
    return Status::success();
  };
  const Status status = timer.time_calls(stream, 0, 1, waits_on_host, samples, nullptr, report::Clock::gpu);
  ASSERT_FALSE(status.ok()) << "a call that waited on the held stream was given a GPU-clock time";
  EXPECT_NE(status.message().find("waited on the host"), std::string::npos) << status.message();
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

} // namespace
} // namespace redu::test
