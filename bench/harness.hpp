// The benchmark body, written once. Every registered case runs through BenchHarness::run: inputs
// come from shared random buffers, the workspace is sized and zeroed outside the timed region, each
// timed call is bracketed by CUDA events after warm-up and (by default) after an L2 flush, and the
// median of the samples is what Google Benchmark records.
#pragma once

#include "l2_flush.hpp"
#include "options.hpp"
#include "sweep.hpp"

#include "common/host/device_buffer.hpp"
#include "report/event_timer.hpp"
#include "report/measured_gpu.hpp"

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

namespace redu::bench
{

// One measured case, kept for the end-of-run summary table.
struct Record
{
  BenchCase c;
  double median_ms = 0;
  double gbps      = 0;
};

class BenchHarness
{
public:
  // Reads the device, measures its copy bandwidth, allocates shared inputs and the flush buffer.
  Status init(const Options& options, const std::vector<BenchCase>& cases);
  ~BenchHarness();

  void run(benchmark::State& state, const BenchCase& c);

  // The GPU and its measured copy bandwidth, what pct_peak and pct_copy compare with.
  const report::MeasuredGpu& gpu() const { return gpu_; }
  const std::vector<Record>& records() const { return records_; }
  // Cases dropped because their inputs do not fit in device memory.
  const std::vector<std::string>& skipped() const { return skipped_; }
  bool fits(const BenchCase& c) const;

private:
  Status measure(const BenchCase& c, std::vector<double>& samples_ms);
  const void* input_for(const BenchCase& c) const;

  Options options_;
  report::MeasuredGpu gpu_;
  cudaStream_t stream_ = nullptr;
  report::EventTimer timer_;
  L2Flusher flusher_;
  std::map<DType, DeviceBuffer> inputs_; // one random buffer per element type, sized for the largest case
  std::map<std::string, DeviceBuffer> offsets_;
  DeviceBuffer output_, indices_, workspace_;
  std::vector<Record> records_;
  std::vector<std::string> skipped_;
};

} // namespace redu::bench
