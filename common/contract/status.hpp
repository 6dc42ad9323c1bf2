// Errors as values: every library entry point returns a Status instead of exiting.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <string_view>
#include <utility>

namespace redu
{

class [[nodiscard]] Status
{
public:
  static Status success() { return Status{}; }
  static Status invalid(std::string message) { return Status{cudaErrorInvalidValue, std::move(message)}; }
  // The context is a view, so a call that succeeds builds no string (env_run in cub_baseline/ passes
  // every timed call's result through here).
  static Status from_cuda(cudaError_t error, std::string_view context)
  {
    if (error == cudaSuccess)
    {
      return success();
    }
    return Status{error,
                  std::string(context) + ": " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")"};
  }

  bool ok() const { return message_.empty(); }
  explicit operator bool() const { return ok(); }
  const std::string& message() const { return message_; }
  // The CUDA error behind the failure; cudaErrorInvalidValue for rejected arguments.
  cudaError_t cuda_error() const { return error_; }

private:
  Status() = default;
  Status(cudaError_t error, std::string message)
      : error_(error)
      , message_(std::move(message))
  {}

  cudaError_t error_ = cudaSuccess;
  std::string message_;
};

} // namespace redu

// Return early from a Status-returning function when a CUDA call fails.
#define REDU_CUDA_TRY(call)                                                    \
  do                                                                           \
  {                                                                            \
    const cudaError_t redu_error_ = (call);                                    \
    if (redu_error_ != cudaSuccess)                                            \
    {                                                                          \
      return ::redu::Status::from_cuda(redu_error_, #call);                    \
    }                                                                          \
  } while (0)

// Return early when a nested Status-returning call fails.
#define REDU_TRY(expr)                                                         \
  do                                                                           \
  {                                                                            \
    ::redu::Status redu_status_ = (expr);                                      \
    if (!redu_status_.ok())                                                    \
    {                                                                          \
      return redu_status_;                                                     \
    }                                                                          \
  } while (0)

