// The benchmark binary's own command line, declared with the report toolkit (report/command_line.hpp).
// Google Benchmark's --benchmark_* flags pass through untouched; anything else unknown is an error (a
// typo must not silently run the wrong sweep).
#pragma once

#include "common/contract/problem.hpp"
#include "report/event_timer.hpp"

#include <string>
#include <vector>

namespace redu::bench
{

struct Options
{
  std::string results_dir;              // write <results_dir>/<gpu-slug>/bench.json
  std::string code_id = "unknown";      // provenance, from scripts/code_id.sh
  std::string sweep   = "default";      // default | full | quick
  std::vector<std::string> impls;       // empty: every registered implementation
  std::vector<DType> dtypes;            // empty: the sweep's choice
  std::vector<Op> ops;                  // empty: the sweep's choice
  int min_log2 = 10;                    // full arrays: n = 2^min_log2 .. 2^max_log2
  int max_log2 = 30;
  // Every case is timed in each L2 state and on each clock listed; the first pair is the headline
  // (median_ms, GBps). Cold: L2 flushed before every timed call. Clocks: report/event_timer.hpp.
  std::vector<bool> cold_l2 = {true, false};
  std::vector<report::Clock> clocks = {report::Clock::host, report::Clock::gpu};
  bool floor = true;                    // time the floor (bench/floor.hpp) for every (type, size) swept
  int samples  = 15;                    // timed calls per benchmark; the median is reported
  bool list    = false;                 // print the registry and exit
  bool list_requirements = false;       // print what each implementation needs, per GPU architecture, and exit
  bool help    = false;
};

struct ParsedCommandLine
{
  Options options;
  std::vector<std::string> benchmark_args; // argv[0] and the --benchmark_* flags
  std::string error;                       // non-empty: print it and a pointer to --help to stderr, exit 2
};

ParsedCommandLine parse_command_line(int argc, const char* const* argv);
std::string usage();

} // namespace redu::bench
