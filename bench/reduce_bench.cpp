// reduce_bench: every registered implementation x type x op x size through one benchmark body.
// `reduce_bench --help` lists the options; README.md documents names, counters and the results file.
#include "harness.hpp"
#include "options.hpp"
#include "summary.hpp"
#include "sweep.hpp"

#include "common/host/device_info.hpp"
#include "report/command_line.hpp"
#include "report/provenance.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>

namespace
{

// The provenance every results file carries, then what only the benchmark has.
void add_context(const redu::bench::BenchHarness& harness, const redu::bench::Options& options)
{
  for (const auto& [key, value] : redu::report::provenance("reduce_bench", options.code_id, harness.gpu()))
  {
    benchmark::AddCustomContext(key, value);
  }
  benchmark::AddCustomContext("l2_mode", options.cold_l2 ? "cold (a kernel reads 2x L2 before each timed call)" : "hot");
  benchmark::AddCustomContext("timing", "CUDA events around each call after 2 warm-ups; median of "
                                          + std::to_string(options.samples) + " samples");
  benchmark::AddCustomContext("sweep", options.sweep);
}

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
    if (redu::find(name) == nullptr)
    {
      std::cerr << "reduce_bench: unknown implementation '" << name << "' (see --list)\n";
      return 2;
    }
  }
  if (options.list)
  {
    for (const redu::Reduction* impl : redu::registry())
    {
      std::cout << impl->info().name << "\t" << impl->info().idea << "\n";
    }
    return 0;
  }
  if (const std::string reason = redu::no_gpu_reason(); !reason.empty())
  {
    std::cerr << "reduce_bench: cannot benchmark: " << reason << "\n";
    return 1;
  }

  const std::vector<redu::bench::BenchCase> cases = redu::bench::build_sweep(options);
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
  for (const redu::bench::BenchCase& c : cases)
  {
    if (!harness.fits(c))
    {
      std::cerr << "reduce_bench: skipping " << c.name() << ": input does not fit in device memory\n";
      continue;
    }
    benchmark::RegisterBenchmark(c.name().c_str(), [&harness, c](benchmark::State& state) { harness.run(state, c); })
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  redu::bench::print_summary(std::cout, harness);
  return 0;
}
