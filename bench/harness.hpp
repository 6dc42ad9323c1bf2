// The benchmark body, written once. Every registered case runs through BenchHarness::run: inputs
// come from shared random buffers, the workspace is sized and zeroed outside the timed region, and each
// case is timed in every L2 state and on every clock the options list (report/event_timer.hpp): warm-up,
// then per (clock, L2 state) a median of samples, each call bracketed by CUDA events, with an L2 flush
// before each call in the cold state. The floor (bench/floor.hpp) of the same bytes is timed the same
// ways, so every row carries its ratio to the floor.
#pragma once

#include "floor.hpp"
#include "l2_flush.hpp"
#include "options.hpp"
#include "sweep.hpp"

#include "common/host/device_buffer.hpp"
#include "common/host/problem_buffers.hpp"
#include "report/event_timer.hpp"
#include "report/measured_gpu.hpp"

#include <benchmark/benchmark.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace redu::bench
{

// One way of timing: a clock and an L2 state. key() names its counters: "host_cold", "gpu_hot", ...
struct Timing
{
  report::Clock clock = report::Clock::host;
  bool cold_l2        = true;
  std::string key() const;
};

// Medians in milliseconds by Timing::key(); a timing that does not apply (the GPU clock for a call that
// waits on the host) is absent.
using TimesMs = std::map<std::string, double>;

// One measured case, kept for the end-of-run summary table.
struct Record
{
  BenchCase c;
  TimesMs ms;
  double headline_gbps = 0; // the first timing's GB/s
};

// The floor of one byte count: per timing, the fastest shape's median and that shape.
struct FloorRecord
{
  TimesMs ms;
  std::map<std::string, std::string> shape;
};

class BenchHarness
{
public:
  // Reads the device, measures its copy bandwidth, allocates shared inputs and the flush buffer.
  Status init(const Options& options, const std::vector<BenchCase>& cases);
  ~BenchHarness();

  void run(benchmark::State& state, const BenchCase& c);
  // The floor row of (dtype, n) and the empty launch row, benchmarks of their own.
  void run_floor(benchmark::State& state, DType dtype, std::int64_t n);
  void run_empty_launch(benchmark::State& state);

  // The GPU and its measured copy bandwidth, what pct_peak and pct_copy compare with.
  const report::MeasuredGpu& gpu() const { return gpu_; }
  const std::vector<Record>& records() const { return records_; }
  const std::vector<Timing>& timings() const { return timings_; }
  std::size_t floor_shape_count() const { return floor_kernels_.shapes().size(); }
  // Cases dropped because their inputs do not fit in device memory.
  const std::vector<std::string>& skipped() const { return skipped_; }
  bool fits(const BenchCase& c) const;
  bool fits(DType dtype, std::int64_t n) const;

private:
  Status measure(const BenchCase& c, TimesMs& ms);
  // The median of options.samples calls of `call` (already warmed up) in `timing`.
  Status time(const Timing& timing, int samples, const std::function<Status()>& call, double& median_ms);
  // The floor of `bytes` read from `input`, measured once per byte count and kept.
  Status floor_of(const void* input, std::size_t bytes, const FloorRecord*& floor);
  const void* input_for(DType dtype) const;

  Options options_;
  std::vector<Timing> timings_; // options' L2 states x clocks, the headline first
  report::MeasuredGpu gpu_;
  cudaStream_t stream_ = nullptr;
  report::EventTimer timer_;
  L2Flusher flusher_;
  FloorKernels floor_kernels_;
  std::map<std::size_t, FloorRecord> floors_;
  std::map<DType, DeviceBuffer> inputs_; // one random buffer per element type, sized for the largest case
  std::map<std::string, DeviceBuffer> offsets_;
  ProblemBuffers buffers_; // outputs, indices and workspace of the case being measured
  std::vector<Record> records_;
  std::vector<std::string> skipped_;
};

} // namespace redu::bench
