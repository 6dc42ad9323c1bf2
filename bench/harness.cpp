#include "harness.hpp"

#include "common/host/random_fill.hpp"

#include <algorithm>
#include <functional>

namespace redu::bench
{

std::string Timing::key() const
{
  return std::string(report::to_string(clock)) + (cold_l2 ? "_cold" : "_hot");
}

BenchHarness::~BenchHarness()
{
  if (stream_ != nullptr)
  {
    cudaStreamDestroy(stream_);
  }
}

Status BenchHarness::init(const Options& options, const std::vector<BenchCase>& cases)
{
  options_ = options;
  for (bool cold : options.cold_l2)
  {
    for (report::Clock clock : options.clocks)
    {
      timings_.push_back({clock, cold});
    }
  }
  REDU_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  REDU_TRY(report::measure_gpu(stream_, gpu_));
  REDU_TRY(timer_.init());
  REDU_TRY(flusher_.init(gpu_.device.l2_bytes));

  // One input per element type, as large as the largest case that fits; a case that does not fit is
  // reported and dropped, and the sweep goes on.
  std::map<DType, std::int64_t> largest;
  for (const BenchCase& c : cases)
  {
    largest[c.dtype] = std::max(largest[c.dtype], c.n);
  }
  std::size_t largest_bytes = 0;
  for (auto [dtype, n] : largest)
  {
    DeviceBuffer buffer;
    while (n > 0 && !buffer.allocate(static_cast<std::size_t>(n) * size_of(dtype)).ok())
    {
      cudaGetLastError();
      skipped_.push_back(std::string(to_string(dtype)) + " inputs of " + std::to_string(n)
                         + " elements: not enough device memory");
      n /= 2;
    }
    if (n > 0)
    {
      REDU_TRY(fill_random(dtype, buffer.data(), n, 0x5eed0000 + static_cast<int>(dtype), stream_));
      largest_bytes = std::max(largest_bytes, buffer.bytes());
      inputs_[dtype] = std::move(buffer);
    }
  }
  REDU_TRY(floor_kernels_.init(gpu_.device.sm_count, largest_bytes));
  REDU_CUDA_TRY(cudaStreamSynchronize(stream_));
  return Status::success();
}

bool BenchHarness::fits(DType dtype, std::int64_t n) const
{
  const auto it = inputs_.find(dtype);
  return it != inputs_.end() && static_cast<std::size_t>(n) * size_of(dtype) <= it->second.bytes();
}

bool BenchHarness::fits(const BenchCase& c) const
{
  return fits(c.dtype, c.n);
}

const void* BenchHarness::input_for(DType dtype) const
{
  return inputs_.at(dtype).data();
}

Status BenchHarness::time(const Timing& timing, int samples, const std::function<Status()>& call, double& median_ms)
{
  std::function<Status()> before_each;
  if (timing.cold_l2)
  {
    before_each = [this] { return flusher_.flush(stream_); };
  }
  std::vector<double> samples_ms;
  REDU_TRY(timer_.time_calls(stream_, 0, samples, call, samples_ms, before_each, timing.clock));
  median_ms = report::median(samples_ms);
  return Status::success();
}

Status BenchHarness::floor_of(const void* input, std::size_t bytes, const FloorRecord*& floor)
{
  if (const auto found = floors_.find(bytes); found != floors_.end())
  {
    floor = &found->second;
    return Status::success();
  }
  // The search: every shape, three samples each after one warm-up; then the fastest few shapes of each
  // timing are timed again with the full sample count, and the smallest of those medians is the floor
  // (three samples alone pick a lucky shape as often as a fast one).
  constexpr int search_samples = 3;
  constexpr std::size_t finalists = 4;
  FloorRecord record;
  for (const Timing& timing : timings_)
  {
    std::vector<std::pair<double, const FloorShape*>> searched;
    for (const FloorShape& shape : floor_kernels_.shapes())
    {
      const auto call = [&] { return floor_kernels_.read(shape, input, bytes, stream_); };
      REDU_TRY(call());
      double ms = 0;
      REDU_TRY(time(timing, search_samples, call, ms));
      searched.emplace_back(ms, &shape);
    }
    std::sort(searched.begin(), searched.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    searched.resize(std::min(finalists, searched.size()));
    for (const auto& [search_ms, shape] : searched)
    {
      double ms = 0;
      REDU_TRY(time(timing, options_.samples, [&] { return floor_kernels_.read(*shape, input, bytes, stream_); }, ms));
      if (record.ms.count(timing.key()) == 0 || ms < record.ms[timing.key()])
      {
        record.ms[timing.key()]    = ms;
        record.shape[timing.key()] = shape->name();
      }
    }
  }
  floor = &floors_.emplace(bytes, std::move(record)).first->second;
  return Status::success();
}

Status BenchHarness::measure(const BenchCase& c, TimesMs& ms)
{
  // Offsets are uploaded once per shape and shared by its cases; the other buffers grow to the largest case.
  const std::int64_t* offsets = nullptr;
  if (c.offsets)
  {
    DeviceBuffer& buffer = offsets_[c.shape];
    if (buffer.data() == nullptr)
    {
      REDU_TRY(upload(*c.offsets, buffer)); // synchronises the device: our stream is non-blocking
    }
    offsets = buffer.as<const std::int64_t>();
  }
  REDU_TRY(make_problem(c.impl, Problem{c.kind, c.dtype, c.op, c.n, c.segments, input_for(c.dtype), nullptr, offsets},
                        buffers_));
  const Problem& problem      = buffers_.problem;
  const Workspace workspace   = buffers_.workspace;
  const std::size_t width     = size_of(output_dtype(c.dtype, c.op)); // f32 for a bf16/f16 sum
  const std::size_t out_bytes = problem.output_bytes();

  // Poisoned output: after the runs every element must have been written.
  REDU_CUDA_TRY(cudaMemsetAsync(problem.output, 0xA5, out_bytes, stream_));
  for (int warm = 0; warm < 2; ++warm)
  {
    REDU_TRY(redu::run(*c.impl, problem, workspace, stream_));
  }
  REDU_CUDA_TRY(cudaStreamSynchronize(stream_));
  // Validated and sized once per case: the timed window holds the launch alone. The warm-up calls
  // checked the segment offsets, which a prepared call trusts.
  Call call;
  REDU_TRY(prepare(*c.impl, problem, workspace, call));

  ms.clear();
  for (const Timing& timing : timings_)
  {
    // A call that may wait on the host (Info::graph_capture false) would hold up the blocked stream.
    if (timing.clock == report::Clock::gpu && !c.impl->info().graph_capture)
    {
      continue;
    }
    REDU_TRY(time(timing, options_.samples, [&] { return call.run(stream_); }, ms[timing.key()]));
  }
  REDU_CUDA_TRY(cudaGetLastError());

  std::vector<unsigned char> out(out_bytes);
  REDU_CUDA_TRY(cudaMemcpy(out.data(), problem.output, out_bytes, cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < out.size(); i += width)
  {
    if (std::all_of(out.begin() + i, out.begin() + i + width, [](unsigned char b) { return b == 0xA5; }))
    {
      return Status::invalid("output " + std::to_string(i / width) + " was never written");
    }
  }
  return Status::success();
}

namespace
{

// Per timing: the median and the bandwidth it means, and (when the floor is known) the floor and the
// row's share of the floor's speed (100: as fast as a plain read of the same bytes).
void add_timing_counters(benchmark::State& state, const TimesMs& ms, double bytes, const FloorRecord* floor)
{
  for (const auto& [key, median_ms] : ms)
  {
    state.counters["ms_" + key]   = median_ms;
    state.counters["GBps_" + key] = bytes / (median_ms * 1e-3) / 1e9;
    if (floor != nullptr && floor->ms.count(key) > 0)
    {
      state.counters["floor_ms_" + key]  = floor->ms.at(key);
      state.counters["pct_floor_" + key] = 100.0 * floor->ms.at(key) / median_ms;
    }
  }
}

} // namespace

void BenchHarness::run(benchmark::State& state, const BenchCase& c)
{
  TimesMs ms;
  const FloorRecord* floor = nullptr;
  const Timing* headline   = nullptr; // the first timing the options list that applies to this case
  for (auto _ : state)
  {
    Status status = measure(c, ms);
    if (status.ok() && options_.floor)
    {
      status = floor_of(input_for(c.dtype), static_cast<std::size_t>(c.n) * size_of(c.dtype), floor);
    }
    if (!status.ok() || ms.empty())
    {
      cudaGetLastError();
      state.SkipWithError(status.ok() ? "no timing applies to this case" : status.message().c_str());
      return;
    }
    headline = &*std::find_if(timings_.begin(), timings_.end(), [&](const Timing& t) { return ms.count(t.key()) > 0; });
    state.SetIterationTime(ms.at(headline->key()) * 1e-3);
  }
  const double median_ms = ms.at(headline->key());
  const double out_bytes =
      static_cast<double>(c.segments) * (size_of(output_dtype(c.dtype, c.op)) + (is_arg(c.op) ? sizeof(std::int64_t) : 0));
  const double bytes     = static_cast<double>(c.n) * size_of(c.dtype) + out_bytes;
  const double gbps      = bytes / (median_ms * 1e-3) / 1e9;
  // Segmented problems also read their offsets: not part of GBps (so a shape has the same figure as
  // offsets and as equal rows), but reported, since with short segments they are much of the traffic.
  const double offsets_bytes = c.offsets ? static_cast<double>(c.offsets->size() * sizeof(std::int64_t)) : 0.0;

  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  add_timing_counters(state, ms, bytes, floor);
  state.counters["GBps"]        = gbps;
  state.counters["pct_peak"]    = 100.0 * gbps / gpu_.peak_gbps; // report/measured_gpu.hpp
  state.counters["pct_copy"]    = 100.0 * gbps / gpu_.copy_gbps;
  state.counters["GBps_incl_offsets"] = (bytes + offsets_bytes) / (median_ms * 1e-3) / 1e9;
  state.counters["median_ms"]   = median_ms;
  state.counters["n"]           = static_cast<double>(c.n);
  state.counters["segments"]    = static_cast<double>(c.segments);
  state.counters["elem_bytes"]  = static_cast<double>(size_of(c.dtype));
  state.counters["samples"]     = static_cast<double>(options_.samples);
  state.counters["cold_l2"]     = headline->cold_l2 ? 1 : 0;
  state.counters["deterministic"] = c.impl->info().is_deterministic(c.dtype, c.op) ? 1 : 0;
  // 0 not_guaranteed, 1 run_to_run, 2 gpu_to_gpu (Determinism in common/contract/reduction.hpp).
  state.counters["determinism"] = static_cast<double>(c.impl->info().determinism_of(c.dtype, c.op));
  state.SetLabel("impl=" + c.impl->info().name + " family=" + c.impl->info().family + " dtype=" + to_string(c.dtype)
                 + " op=" + to_string(c.op) + " kind=" + to_string(c.kind) + " shape=" + c.shape
                 + " headline=" + headline->key());
  records_.push_back({c, ms, gbps});
}

void BenchHarness::run_floor(benchmark::State& state, DType dtype, std::int64_t n)
{
  const FloorRecord* floor = nullptr;
  const double bytes       = static_cast<double>(n) * size_of(dtype);
  for (auto _ : state)
  {
    if (const Status status = floor_of(input_for(dtype), static_cast<std::size_t>(n) * size_of(dtype), floor); !status.ok())
    {
      cudaGetLastError();
      state.SkipWithError(status.message().c_str());
      return;
    }
    state.SetIterationTime(floor->ms.at(timings_.front().key()) * 1e-3);
  }
  add_timing_counters(state, floor->ms, bytes, nullptr);
  state.counters["n"]          = static_cast<double>(n);
  state.counters["elem_bytes"] = static_cast<double>(size_of(dtype));
  std::string label = "impl=floor.read family=floor dtype=" + std::string(to_string(dtype))
                    + " op=read kind=full shape=n:" + std::to_string(n);
  for (const auto& [key, shape] : floor->shape)
  {
    label += " floor_shape_" + key + "=" + shape;
  }
  state.SetLabel(label);
}

void BenchHarness::run_empty_launch(benchmark::State& state)
{
  TimesMs ms;
  for (auto _ : state)
  {
    for (const Timing& timing : timings_)
    {
      const auto call = [&] { return floor_kernels_.empty(stream_); };
      Status status   = call();
      if (status.ok())
      {
        status = time(timing, options_.samples, call, ms[timing.key()]);
      }
      if (!status.ok())
      {
        cudaGetLastError();
        state.SkipWithError(status.message().c_str());
        return;
      }
    }
    state.SetIterationTime(ms.at(timings_.front().key()) * 1e-3);
  }
  for (const auto& [key, median_ms] : ms)
  {
    state.counters["ms_" + key] = median_ms;
  }
  state.SetLabel("impl=floor.empty_launch family=floor dtype=none op=none kind=none shape=none");
}

} // namespace redu::bench
