// Small GPU-side helpers the tests share: status assertions, poisoned outputs, a checked run.
#pragma once

#include "common/host/device_buffer.hpp"
#include "common/contract/reduction.hpp"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstring>
#include <vector>

#define ASSERT_OK(expr)                                    \
  do                                                       \
  {                                                        \
    const ::redu::Status redu_s_ = (expr);                 \
    ASSERT_TRUE(redu_s_.ok()) << #expr << ": " << redu_s_.message(); \
  } while (0)

namespace redu::test
{

// Output bytes are filled with this pattern before every run, so an unwritten output is caught.
constexpr int poison_byte = 0xA5;

inline Status poison(DeviceBuffer& buffer)
{
  if (buffer.bytes() > 0)
  {
    REDU_CUDA_TRY(cudaMemset(buffer.data(), poison_byte, buffer.bytes()));
    REDU_CUDA_TRY(cudaDeviceSynchronize()); // as in redu::upload(): ordered before work on any stream
  }
  return Status::success();
}

// Runs `impl` on `problem` and waits for it; a launch or execution error comes back as a Status.
inline Status run_and_wait(const Reduction& impl, const Problem& problem, Workspace workspace, cudaStream_t stream)
{
  REDU_TRY(run(impl, problem, workspace, stream));
  REDU_CUDA_TRY(cudaStreamSynchronize(stream));
  REDU_CUDA_TRY(cudaGetLastError());
  return Status::success();
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b)
{
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

} // namespace redu::test
