#include "options.hpp"

#include "report/command_line.hpp"

namespace redu::bench
{
namespace
{

// 2^40 elements is more than any GPU holds: a sweep may ask for sizes that do not fit, which are then
// reported and skipped (tests/bench_cli_test.sh relies on it).
constexpr int max_size_log2 = 40;

// Every value of an enum the contract lists (all_dtypes, all_ops), chosen by its name.
template <class Enum, std::size_t count>
report::Choices<Enum> by_name(const Enum (&values)[count])
{
  report::Choices<Enum> choices;
  for (const Enum value : values)
  {
    choices.emplace_back(to_string(value), value);
  }
  return choices;
}

// The options, bound to where their values go.
report::CommandLine command_line(Options& o)
{
  report::CommandLine command_line("reduce_bench");
  command_line
    .option("--results_dir", "DIR", "write DIR/<gpu-slug>/bench.json (JSON, counters and context)",
            report::text(o.results_dir))
    .option("--code_id", "ID", "provenance id of the code (scripts/code_id.sh), recorded in the context",
            report::text(o.code_id))
    .option("--sweep", "NAME",
            "default (f32/i32/f64 sum and sum_squares at every size; min, max, argmin, argmax for\n"
            "  f32/i32 at 2^16, 2^18, ..., 2^30; batched and segmented f32 sum, max, argmax, argmax\n"
            "  also on the language-model sampling shapes; bf16/f16 sum at 2^16, 2^18, ..., 2^30 and\n"
            "  on every batched and segmented shape) |\n"
            "full (every op each implementation declares, for i32/i64/f32/f64; bf16/f16 with --types) |\n"
            "quick (f32, a few sizes and a small shape total)",
            report::one_of(report::Choices<std::string>{{"default", "default"}, {"full", "full"}, {"quick", "quick"}},
                           o.sweep))
    .option("--impl", "A,B", "only these implementations (see --list)", report::name_list(o.impls))
    .option("--types", "f32,i32", "element types (default: the sweep's)", report::list_of(by_name(all_dtypes), o.dtypes))
    .option("--ops", "sum,min", "operators (default: the sweep's)", report::list_of(by_name(all_ops), o.ops))
    .option("--min_log2", "K", "smallest full-array size 2^K (default 10)",
            report::integer_in(0, max_size_log2, o.min_log2))
    .option("--max_log2", "K", "largest full-array size 2^K (default 30)",
            report::integer_in(0, max_size_log2, o.max_log2))
    .option("--l2", "cold,hot", "L2 states to time each case in: cold (flushed before each timed call), hot\n"
                                "(not flushed); the first is the headline (default cold,hot)",
            report::list_of(report::Choices<bool>{{"cold", true}, {"hot", false}}, o.cold_l2))
    .option("--clocks", "host,gpu", "clocks to time each case on: host (events around the call as enqueued, host\n"
                                    "launch time included), gpu (the call queued behind a held stream: GPU work\n"
                                    "only); the first is the headline (default host,gpu)",
            report::list_of(report::Choices<report::Clock>{{"host", report::Clock::host}, {"gpu", report::Clock::gpu}},
                            o.clocks))
    .option("--floor", "yes|no", "time the floor, the fastest plain read of the same bytes (default yes)",
            report::one_of(report::Choices<bool>{{"yes", true}, {"no", false}}, o.floor))
    .option("--samples", "N", "timed calls per benchmark, median reported (default 15)",
            report::integer_in(1, 100000, o.samples))
    .flag("--list", "list the registered implementations, what each needs and whether it runs here, and exit",
          o.list)
    .flag("--list_requirements", "per GPU architecture (sm_75 ... sm_120), which implementations run and on which\n"
                                 "  path, from their declared requirements; no GPU needed (docs/gpus.md)",
          o.list_requirements)
    .pass_through("--benchmark_", "Google Benchmark flags (--benchmark_filter, --benchmark_repetitions, ...) pass "
                                  "through.");
  return command_line;
}

} // namespace

std::string usage()
{
  Options unused; // the text needs the declarations, not their targets
  return command_line(unused).usage();
}

ParsedCommandLine parse_command_line(int argc, const char* const* argv)
{
  ParsedCommandLine parsed;
  const report::ParsedArguments arguments = command_line(parsed.options).parse(argc, argv);
  parsed.options.help = arguments.help;
  parsed.error        = arguments.error;
  parsed.benchmark_args.push_back(argc > 0 ? argv[0] : "reduce_bench");
  parsed.benchmark_args.insert(parsed.benchmark_args.end(), arguments.passed_through.begin(),
                               arguments.passed_through.end());
  if (parsed.error.empty() && parsed.options.min_log2 > parsed.options.max_log2)
  {
    parsed.error = "--min_log2=" + std::to_string(parsed.options.min_log2) + " is larger than --max_log2="
                   + std::to_string(parsed.options.max_log2);
  }
  return parsed;
}

} // namespace redu::bench
