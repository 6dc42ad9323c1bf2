// reduce_bench: every registered implementation x type x op x size through one benchmark body.
// `reduce_bench --help` lists the options; docs/benchmarking.md documents names, counters and the results file.
#include "harness.hpp"
#include "options.hpp"
#include "registry_listing.hpp"
#include "summary.hpp"
#include "sweep.hpp"

#include "common/host/device_info.hpp"
#include "report/command_line.hpp"
#include "report/provenance.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

namespace
{

// The provenance every results file carries, then what only the benchmark has.
void add_context(const redu::bench::BenchHarness& harness, const redu::bench::Options& options)
{
  for (const auto& [key, value] : redu::report::provenance("reduce_bench", options.code_id, harness.gpu()))
  {
    benchmark::AddCustomContext(key, value);
  }
  std::string timings;
  for (const redu::bench::Timing& timing : harness.timings())
  {
    timings += (timings.empty() ? "" : ",") + timing.key();
  }
  benchmark::AddCustomContext("timings", timings);
  benchmark::AddCustomContext("headline", harness.timings().front().key());
  benchmark::AddCustomContext("l2_mode", "cold: a kernel reads 2x the L2 size before each timed call (outside the "
                                         "events); hot: nothing between calls, the input stays in L2 as far as it fits");
  benchmark::AddCustomContext("clock_host", "CUDA events around the call as the host enqueues it: host launch time "
                                            "included where it outlasts the GPU work");
  benchmark::AddCustomContext("clock_gpu", "the flush, the events and the call queued behind a kernel that holds the "
                                           "stream until the host releases it: GPU work only (nvbench's method); "
                                           "absent for calls that wait on the host");
  benchmark::AddCustomContext("timing", "2 warm-ups, then per clock and L2 state the median of "
                                          + std::to_string(options.samples) + " samples");
  benchmark::AddCustomContext("floor", options.floor ? "per byte count, the fastest of "
                                                         + std::to_string(harness.floor_shape_count())
                                                         + " plain-read launch shapes (bench/floor.hpp), per clock "
                                                           "and L2 state"
                                                     : std::string("not measured"));
  benchmark::AddCustomContext("sweep", options.sweep);
}

// The console table without Google Benchmark's preamble: the host CPU's caches and load say nothing
// about a GPU measurement, and a distribution's library built without NDEBUG (Debian's is) adds
// "Library was built as DEBUG. Timings may be affected", which is not true here: every time is a CUDA
// event time handed over as manual time, and the library's own timers are never read. The GPU, clocks
// and CCCL version go to the JSON context (add_context) and the summary.
class GpuConsoleReporter : public benchmark::ConsoleReporter
{
public:
  bool ReportContext(const Context& context) override
  {
    std::ostream& errors = GetErrorStream(); // where the library prints its preamble: muted for that call
    std::ostringstream preamble;
    SetErrorStream(&preamble);
    const bool ok = benchmark::ConsoleReporter::ReportContext(context);
    SetErrorStream(&errors);
    GetOutputStream() << "reduce_bench: times are CUDA event times (manual time); the GPU and its clocks are in "
                         "the results file's context and the summary below\n";
    return ok;
  }
};

// "case k of N, time left" on stderr, at most every ten seconds: a full sweep takes minutes.
class Progress
{
public:
  void set_total(std::size_t total) { total_ = total; }
  void case_done()
  {
    ++done_;
    const auto now     = std::chrono::steady_clock::now();
    const double spent = std::chrono::duration<double>(now - start_).count();
    if (done_ < total_ && std::chrono::duration<double>(now - last_).count() < 10.0)
    {
      return;
    }
    last_ = now;
    const double left = done_ > 0 ? spent / static_cast<double>(done_) * static_cast<double>(total_ - done_) : 0.0;
    std::fprintf(stderr, "reduce_bench: case %zu of %zu, %.0f s spent, about %.0f s left\n", done_, total_, spent, left);
  }

private:
  std::size_t total_ = 0, done_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_ = start_;
};

} // namespace

int main(int argc, char** argv)
{
  const auto parsed = redu::bench::parse_command_line(argc, argv);
  if (const std::optional<int> exit_status =
        redu::report::help_or_error("reduce_bench", parsed.error, parsed.options.help, redu::bench::usage()))
  {
    return *exit_status;
  }
  const redu::bench::Options& options = parsed.options;
  for (const std::string& name : options.impls)
  {
    const auto& absent = redu::absent_from_build();
    if (const auto it = std::find_if(absent.begin(), absent.end(), [&](const auto& a) { return a.name == name; });
        it != absent.end())
    {
      std::cerr << "reduce_bench: '" << name << "' is not in this build: " << it->why << "\n";
      return 2;
    }
    if (redu::find(name) == nullptr)
    {
      const std::string closest = redu::bench::closest_name(name);
      std::cerr << "reduce_bench: unknown implementation '" << name << "'"
                << (closest.empty() ? std::string() : "; did you mean '" + closest + "'?") << " (see --list)\n";
      return 2;
    }
  }
  if (options.list)
  {
    redu::bench::print_registry(std::cout);
    return 0;
  }
  if (options.list_requirements)
  {
    redu::bench::print_requirements(std::cout);
    return 0;
  }
  if (const std::string reason = redu::no_gpu_reason(); !reason.empty())
  {
    std::cerr << "reduce_bench: cannot benchmark: " << reason
              << "; the benchmark needs an NVIDIA GPU (without one, `cmake --workflow --preset test` builds and runs "
                 "the tests, and the notebooks read the checked-in results)\n";
    return 1;
  }

  // An implementation that cannot run on this GPU with this binary (common/contract/requirements.hpp) is
  // left out of the sweep, saying why here and in the results file's context (unavailable).
  std::vector<redu::bench::BenchCase> cases;
  std::string unavailable;
  std::set<const redu::Reduction*> refused;
  for (redu::bench::BenchCase& c : redu::bench::build_sweep(options))
  {
    const redu::Availability verdict = redu::available_here(*c.impl);
    if (verdict.ok)
    {
      cases.push_back(std::move(c));
    }
    else if (refused.insert(c.impl).second)
    {
      std::cerr << "reduce_bench: skipping " << c.impl->info().name << ": not available here: " << verdict.reason << "\n";
      unavailable += (unavailable.empty() ? "" : "; ") + c.impl->info().name + ": " + verdict.reason;
    }
  }
  redu::bench::BenchHarness harness;
  if (const redu::Status status = harness.init(options, cases); !status.ok())
  {
    std::cerr << "reduce_bench: " << status.message() << "\n";
    return 1;
  }

  std::vector<std::string> args = parsed.benchmark_args;
  const bool has_out = std::any_of(args.begin(), args.end(), [](const std::string& a) {
    return a.rfind("--benchmark_out=", 0) == 0;
  });
  if (!options.results_dir.empty() && !has_out)
  {
    const std::filesystem::path dir = std::filesystem::path(options.results_dir) / redu::gpu_slug(harness.gpu().device.name);
    std::filesystem::create_directories(dir);
    args.push_back("--benchmark_out=" + (dir / "bench.json").string());
    args.push_back("--benchmark_out_format=json");
    std::cout << "reduce_bench: writing " << (dir / "bench.json").string() << "\n";
  }
  std::vector<char*> bench_argv;
  for (std::string& a : args)
  {
    bench_argv.push_back(a.data());
  }
  int bench_argc = static_cast<int>(bench_argv.size());
  benchmark::Initialize(&bench_argc, bench_argv.data());

  add_context(harness, options);
  benchmark::AddCustomContext("unavailable", unavailable.empty() ? "none" : unavailable);
  // The floor rows first (one per element type and size the sweep reads, and the empty launch), then
  // the cases, which reuse the floors measured here.
  std::set<std::pair<redu::DType, std::int64_t>> floors;
  Progress progress;
  std::size_t registered = 0;
  if (options.floor)
  {
    ++registered;
    benchmark::RegisterBenchmark("floor/empty_launch", [&harness, &progress](benchmark::State& state) {
      harness.run_empty_launch(state);
      progress.case_done();
    })
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMicrosecond);
    for (const redu::bench::BenchCase& c : cases)
    {
      if (harness.fits(c) && floors.emplace(c.dtype, c.n).second)
      {
        const std::string name = std::string("floor/read/") + redu::to_string(c.dtype) + "/n:" + std::to_string(c.n);
        ++registered;
        benchmark::RegisterBenchmark(name.c_str(), [&harness, &progress, c](benchmark::State& state) {
          harness.run_floor(state, c.dtype, c.n);
          progress.case_done();
        })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
      }
    }
  }
  for (const redu::bench::BenchCase& c : cases)
  {
    if (!harness.fits(c))
    {
      std::cerr << "reduce_bench: skipping " << c.name() << ": input does not fit in device memory\n";
      continue;
    }
    ++registered;
    benchmark::RegisterBenchmark(c.name().c_str(), [&harness, &progress, c](benchmark::State& state) {
      harness.run(state, c);
      progress.case_done();
    })
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMicrosecond);
  }
  progress.set_total(registered); // --benchmark_filter may run fewer: then the count ends early
  GpuConsoleReporter console;
  benchmark::RunSpecifiedBenchmarks(&console);
  redu::bench::print_summary(std::cout, harness);
  return 0;
}
