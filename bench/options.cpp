#include "options.hpp"

#include <sstream>

namespace redu::bench
{

std::optional<DType> parse_dtype(const std::string& text)
{
  for (DType dtype : all_dtypes)
  {
    if (text == to_string(dtype))
    {
      return dtype;
    }
  }
  return std::nullopt;
}

std::optional<Op> parse_op(const std::string& text)
{
  for (Op op : all_ops)
  {
    if (text == to_string(op))
    {
      return op;
    }
  }
  return std::nullopt;
}

namespace
{
// 2^40 elements is more than any GPU holds: a sweep may ask for sizes that do not fit, which are then
// reported and skipped (tests/bench_cli_test.sh relies on it).
constexpr int max_size_log2 = 40;

std::vector<std::string> split(const std::string& text)
{
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, ','))
  {
    if (!part.empty())
    {
      parts.push_back(part);
    }
  }
  return parts;
}

bool parse_int(const std::string& text, int low, int high, int& value)
{
  try
  {
    std::size_t used = 0;
    const int parsed = std::stoi(text, &used);
    if (used != text.size() || parsed < low || parsed > high)
    {
      return false;
    }
    value = parsed;
    return true;
  }
  catch (const std::exception&)
  {
    return false;
  }
}

template <class T, class Parse>
bool parse_list(const std::string& text, Parse parse, std::vector<T>& out)
{
  for (const std::string& part : split(text))
  {
    const auto value = parse(part);
    if (!value)
    {
      return false;
    }
    out.push_back(*value);
  }
  return !out.empty();
}
} // namespace

std::string usage()
{
  return "usage: reduce_bench [options] [--benchmark_* flags]\n"
         "  --results_dir=DIR    write DIR/<gpu-slug>/bench.json (JSON, counters and context)\n"
         "  --code_id=ID         provenance id of the code (scripts/code_id.sh)\n"
         "  --sweep=NAME         default (f32/i32/f64 sum and sum_squares, every size; f32 for shapes) |\n"
         "                       full (every type and op each implementation declares) |\n"
         "                       quick (f32, a few sizes and a small shape total)\n"
         "  --impl=A,B           only these implementations (see --list)\n"
         "  --types=f32,i32      element types: i32 i64 f32 f64\n"
         "  --ops=sum,min        operators: sum min max sum_squares argmin argmax\n"
         "  --min_log2=K --max_log2=K   full-array sizes 2^K, K <= 40 (default 10..30)\n"
         "  --l2=cold|hot        flush L2 before each timed call (default cold)\n"
         "  --samples=N          timed calls per benchmark, median reported (default 15)\n"
         "  --list               list the registered implementations and exit\n"
         "Google Benchmark flags (--benchmark_filter, --benchmark_repetitions, ...) pass through.\n";
}

ParsedCommandLine parse_command_line(int argc, const char* const* argv)
{
  ParsedCommandLine parsed;
  Options& o = parsed.options;
  parsed.benchmark_args.push_back(argc > 0 ? argv[0] : "reduce_bench");
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    const auto eq         = arg.find('=');
    const std::string key = arg.substr(0, eq);
    const std::string val = eq == std::string::npos ? "" : arg.substr(eq + 1);
    bool ok               = true;
    if (key.rfind("--benchmark_", 0) == 0)
    {
      parsed.benchmark_args.push_back(arg);
    }
    else if (key == "--results_dir" && !val.empty())
    {
      o.results_dir = val;
    }
    else if (key == "--code_id" && !val.empty())
    {
      o.code_id = val;
    }
    else if (key == "--sweep")
    {
      ok      = val == "default" || val == "full" || val == "quick";
      o.sweep = val;
    }
    else if (key == "--impl")
    {
      o.impls = split(val);
      ok      = !o.impls.empty();
    }
    else if (key == "--types")
    {
      ok = parse_list(val, parse_dtype, o.dtypes);
    }
    else if (key == "--ops")
    {
      ok = parse_list(val, parse_op, o.ops);
    }
    else if (key == "--min_log2")
    {
      ok = parse_int(val, 0, max_size_log2, o.min_log2);
    }
    else if (key == "--max_log2")
    {
      ok = parse_int(val, 0, max_size_log2, o.max_log2);
    }
    else if (key == "--l2")
    {
      ok        = val == "cold" || val == "hot";
      o.cold_l2 = val == "cold";
    }
    else if (key == "--samples")
    {
      ok = parse_int(val, 1, 100000, o.samples);
    }
    else if (arg == "--list")
    {
      o.list = true;
    }
    else if (arg == "--help" || arg == "-h")
    {
      o.help = true;
    }
    else
    {
      parsed.error = "unknown option: " + arg;
      return parsed;
    }
    if (!ok)
    {
      parsed.error = "bad value in option: " + arg;
      return parsed;
    }
  }
  if (o.min_log2 > o.max_log2)
  {
    parsed.error = "--min_log2 is larger than --max_log2";
  }
  return parsed;
}

} // namespace redu::bench
