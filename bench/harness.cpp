#include "harness.hpp"

#include "common/host/random_fill.hpp"

#include <algorithm>
#include <functional>

namespace redu::bench
{

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
      inputs_[dtype] = std::move(buffer);
    }
  }
  REDU_CUDA_TRY(cudaStreamSynchronize(stream_));
  return Status::success();
}

bool BenchHarness::fits(const BenchCase& c) const
{
  const auto it = inputs_.find(c.dtype);
  return it != inputs_.end() && static_cast<std::size_t>(c.n) * size_of(c.dtype) <= it->second.bytes();
}

const void* BenchHarness::input_for(const BenchCase& c) const
{
  return inputs_.at(c.dtype).data();
}

Status BenchHarness::measure(const BenchCase& c, std::vector<double>& samples_ms)
{
  const std::size_t out_bytes = static_cast<std::size_t>(c.segments) * size_of(c.dtype);
  if (output_.bytes() < out_bytes)
  {
    REDU_TRY(output_.allocate(out_bytes));
  }
  const std::int64_t* offsets = nullptr;
  if (c.offsets)
  {
    DeviceBuffer& buffer = offsets_[c.shape];
    if (buffer.data() == nullptr)
    {
      REDU_TRY(buffer.allocate(c.offsets->size() * sizeof(std::int64_t)));
      REDU_CUDA_TRY(cudaMemcpy(buffer.data(), c.offsets->data(), buffer.bytes(), cudaMemcpyHostToDevice));
      REDU_CUDA_TRY(cudaDeviceSynchronize()); // our stream is non-blocking: it does not wait for that copy
    }
    offsets = buffer.as<const std::int64_t>();
  }
  if (is_arg(c.op) && indices_.bytes() < static_cast<std::size_t>(c.segments) * sizeof(std::int64_t))
  {
    REDU_TRY(indices_.allocate(static_cast<std::size_t>(c.segments) * sizeof(std::int64_t)));
  }
  const Problem problem{c.kind,         c.dtype,        c.op,    c.n, c.segments, input_for(c),
                        output_.data(), offsets, indices_.as<std::int64_t>()};
  Workspace workspace;
  REDU_TRY(allocate_workspace(*c.impl, problem, workspace_, workspace));

  // Poisoned output: after the runs every element must have been written.
  REDU_CUDA_TRY(cudaMemsetAsync(output_.data(), 0xA5, out_bytes, stream_));
  for (int warm = 0; warm < 2; ++warm)
  {
    REDU_TRY(redu::run(*c.impl, problem, workspace, stream_));
  }
  REDU_CUDA_TRY(cudaStreamSynchronize(stream_));
  // Validated and sized once per case: the timed window holds the launch alone. The warm-up calls
  // checked the segment offsets, which a prepared call trusts.
  Call call;
  REDU_TRY(prepare(*c.impl, problem, workspace, call));

  // Cold L2: a flush before each timed call, outside its events. No warm-ups here: they ran above.
  std::function<Status()> before_each;
  if (options_.cold_l2)
  {
    before_each = [this] { return flusher_.flush(stream_); };
  }
  REDU_TRY(timer_.time_calls(stream_, 0, options_.samples, [&] { return call.run(stream_); }, samples_ms,
                             before_each));
  REDU_CUDA_TRY(cudaGetLastError());

  std::vector<unsigned char> out(out_bytes);
  REDU_CUDA_TRY(cudaMemcpy(out.data(), output_.data(), out_bytes, cudaMemcpyDeviceToHost));
  const std::size_t width = size_of(c.dtype);
  for (std::size_t i = 0; i < out.size(); i += width)
  {
    if (std::all_of(out.begin() + i, out.begin() + i + width, [](unsigned char b) { return b == 0xA5; }))
    {
      return Status::invalid("output " + std::to_string(i / width) + " was never written");
    }
  }
  return Status::success();
}

void BenchHarness::run(benchmark::State& state, const BenchCase& c)
{
  std::vector<double> samples;
  double median_ms = 0;
  for (auto _ : state)
  {
    const Status status = measure(c, samples);
    if (!status.ok())
    {
      cudaGetLastError();
      state.SkipWithError(status.message().c_str());
      return;
    }
    median_ms = report::median(samples);
    state.SetIterationTime(median_ms * 1e-3);
  }
  std::sort(samples.begin(), samples.end());
  const double out_bytes = static_cast<double>(c.segments) * (size_of(c.dtype) + (is_arg(c.op) ? sizeof(std::int64_t) : 0));
  const double bytes     = static_cast<double>(c.n) * size_of(c.dtype) + out_bytes;
  const double gbps      = bytes / (median_ms * 1e-3) / 1e9;
  // Segmented problems also read their offsets: not part of GBps (so a shape has the same figure as
  // offsets and as equal rows), but reported, since with short segments they are much of the traffic.
  const double offsets_bytes = c.offsets ? static_cast<double>(c.offsets->size() * sizeof(std::int64_t)) : 0.0;

  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  state.counters["GBps"]        = gbps;
  state.counters["pct_peak"]    = 100.0 * gbps / gpu_.device.peak_gbps();
  state.counters["pct_copy"]    = 100.0 * gbps / gpu_.copy_gbps;
  state.counters["GBps_incl_offsets"] = (bytes + offsets_bytes) / (median_ms * 1e-3) / 1e9;
  state.counters["median_ms"]   = median_ms;
  state.counters["min_ms"]      = samples.front();
  state.counters["max_ms"]      = samples.back();
  state.counters["n"]           = static_cast<double>(c.n);
  state.counters["segments"]    = static_cast<double>(c.segments);
  state.counters["elem_bytes"]  = static_cast<double>(size_of(c.dtype));
  state.counters["samples"]     = static_cast<double>(samples.size());
  state.counters["cold_l2"]     = options_.cold_l2 ? 1 : 0;
  state.counters["deterministic"] = c.impl->info().is_deterministic(c.dtype, c.op) ? 1 : 0;
  state.SetLabel("impl=" + c.impl->info().name + " family=" + c.impl->info().family + " dtype=" + to_string(c.dtype)
                 + " op=" + to_string(c.op) + " kind=" + to_string(c.kind) + " shape=" + c.shape);
  records_.push_back({c, median_ms, gbps});
}

} // namespace redu::bench
