// Holds a stream on the GPU until the host lets it go: the way nvbench takes launch overhead out of a
// GPU-side time. A one-thread kernel spins on a flag in pinned host memory; whatever the host enqueues
// behind it (events, the timed call) is already queued when the flag is set, so the GPU runs it back to
// back, with no host launch gaps between the events.
//
// The timed work must not wait on the host: a call that synchronises while the stream is held would
// wait forever for the kernel that waits for it. The kernel therefore gives up after a timeout, and
// check() reports that as an error instead of hanging. So must a kernel's first launch: CUDA loads a
// module lazily, and the load waits for the kernels already running, the blocker among them. Call the
// timed work once, unheld, before holding the stream for it (EventTimer's warm-up calls do).
#pragma once

#include "common/contract/status.hpp"

#include <cuda_runtime_api.h>

namespace redu::report
{

class StreamBlocker
{
public:
  StreamBlocker() = default;
  StreamBlocker(const StreamBlocker&)            = delete;
  StreamBlocker& operator=(const StreamBlocker&) = delete;
  ~StreamBlocker();

  Status init();
  // Enqueues the spinning kernel on `stream`; everything enqueued after it waits for release().
  Status block(cudaStream_t stream);
  // Sets the flag: the held work runs.
  void release();
  // Once the held work has completed: an error if the kernel gave up waiting (the work waited on the host).
  Status check() const;

private:
  volatile int* flag_ = nullptr;     // pinned, mapped host memory: written by the host, read by the kernel
  volatile int* timed_out_ = nullptr; // written by the kernel when it gave up
  int* device_words_ = nullptr;       // the same two words as the kernel addresses them
};

} // namespace redu::report
