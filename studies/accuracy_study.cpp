// accuracy_study: how far float and double sums land from the exact value, per implementation, data set
// and n, and how often a run-to-run repeat changes the bits. Feeds notebooks/04_accuracy_and_determinism.ipynb.
//
// Data (Data below): same-sign uniform [0, 1), where running sums grow and rounding error accumulates the
// way it does in real workloads; mixed signs; and a cancelling set whose sum is a millionth of sum|x|,
// where only compensated and exact sums keep their digits. The reference is the exact sum (integer
// limbs, to about twice the element precision). Besides every registered float-sum implementation, two
// CPU baselines: the naive sequential loop and a pairwise (recursive halving) sum. Each result's bits are
// recorded, so the files of two GPUs show which implementations give the same bits on both.
//
// `accuracy_study --help` lists the options. Exit status: 0 success, 1 no GPU or a CUDA failure, 2 bad
// command line.
#include "common/contract/reduction.hpp"
#include "handwritten/precision/exact_host_sum.hpp"
#include "common/host/device_buffer.hpp"
#include "common/host/problem_buffers.hpp"
#include "report/command_line.hpp"
#include "report/json_writer.hpp"
#include "report/measured_gpu.hpp"
#include "report/provenance.hpp"
#include "report/study_program.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <cstring>
#include <iostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace
{

using redu::Status;
namespace report = redu::report;

constexpr const char* program = "accuracy_study";
constexpr int min_log2        = 10;

struct Options
{
  std::string out;
  std::string code_id = "unknown";
  int max_log2        = 26;
  int repeats         = 10;
};

report::CommandLine command_line(Options& o)
{
  report::CommandLine command_line(program);
  command_line
    .required_option("--out", "FILE.json", "write the results and their context here", report::text(o.out))
    .option("--code_id", "ID", "provenance id of the code (scripts/code_id.sh), recorded in the context",
            report::text(o.code_id))
    .option("--max_log2", "K", "sizes n = 2^10, 2^12, ..., at most 2^K (default 26)",
            report::integer_in(min_log2, 30, o.max_log2))
    .option("--repeats", "R", "runs of each implementation at each n, to count distinct results (default 10)",
            report::integer_in(2, 1000, o.repeats));
  return command_line;
}

struct Row
{
  std::string method;
  std::string family;
  std::string dtype;
  std::string data;
  std::int64_t n;
  double result;
  std::string result_bits; // hexadecimal: the bits, to compare GPU models (gpu_to_gpu)
  double abs_error;
  double rel_error;
  int distinct;
  int repeats;
  bool declared_deterministic;
  std::string determinism;
};

// The data sets, from the easiest for a plain sum to the hardest.
enum class Data
{
  same_sign,  // uniform [0, 1): running sums grow, rounding error accumulates as in real workloads
  mixed_sign, // uniform [-1, 1): errors partly cancel
  cancelling  // n/4 pairs x, -x with |x| up to 2^20, and n/2 values in [0, 1): the sum is ~2^-20 of sum|x|
};
constexpr Data all_data[] = {Data::same_sign, Data::mixed_sign, Data::cancelling};

const char* to_string(Data data)
{
  switch (data)
  {
    case Data::same_sign:
      return "uniform01";
    case Data::mixed_sign:
      return "uniform-11";
    case Data::cancelling:
      return "cancelling";
  }
  return "?";
}

template <class T> std::vector<T> make_data(Data data, std::int64_t n, std::mt19937_64& rng)
{
  std::vector<T> x(static_cast<std::size_t>(n));
  std::uniform_real_distribution<T> unit(data == Data::mixed_sign ? T(-1) : T(0), T(1));
  for (T& v : x)
  {
    v = unit(rng);
  }
  if (data == Data::cancelling)
  {
    std::uniform_real_distribution<T> big(T(-1048576), T(1048576));
    for (std::int64_t i = 0; i + 1 < n / 2; i += 2)
    {
      x[static_cast<std::size_t>(i)]     = big(rng);
      x[static_cast<std::size_t>(i + 1)] = -x[static_cast<std::size_t>(i)];
    }
    std::shuffle(x.begin(), x.end(), rng);
  }
  return x;
}

template <class T> T pairwise(const T* x, std::int64_t n)
{
  if (n <= 8)
  {
    T s = 0;
    for (std::int64_t i = 0; i < n; ++i)
    {
      s += x[i];
    }
    return s;
  }
  const std::int64_t half = n / 2;
  return pairwise(x, half) + pairwise(x + half, n - half);
}

template <class T> T sequential_sum(const std::vector<T>& x)
{
  T sum = 0;
  for (const T v : x)
  {
    sum += v;
  }
  return sum;
}

template <class T> std::string hex_bits(T value)
{
  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t> bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  std::ostringstream text;
  text << std::hex << std::setw(2 * sizeof(T)) << std::setfill('0') << bits;
  return text.str();
}

// One full sum run `repeats` times: the first result, and how many distinct bit patterns came back.
template <class T>
Status run_repeatedly(const redu::Reduction& impl, const redu::Problem& p, redu::Workspace ws, int repeats, T& first,
                      int& distinct)
{
  std::set<std::string> bit_patterns;
  for (int r = 0; r < repeats; ++r)
  {
    REDU_TRY(redu::run(impl, p, ws, nullptr));
    T got = 0;
    REDU_CUDA_TRY(cudaMemcpy(&got, p.output, sizeof got, cudaMemcpyDeviceToHost));
    bit_patterns.insert(hex_bits(got));
    if (r == 0)
    {
      first = got;
    }
  }
  distinct = static_cast<int>(bit_patterns.size());
  return Status::success();
}

// Every registered full sum of T, and the two CPU baselines, on one data set and size.
template <class T>
Status study_one(const Options& options, Data data, std::int64_t n, std::mt19937_64& rng, std::vector<Row>& rows)
{
  constexpr redu::DType dtype = redu::dtype_of<T>();
  const std::vector<T> x      = make_data<T>(data, n, rng);
  redu::precision::ExactHostSum<T> reference;
  reference.add(x);
  const long double exact = reference.to_long_double();
  const auto add = [&](const std::string& method, const std::string& family, T result, int distinct,
                       redu::Determinism determinism) {
    const double abs_error = std::fabs(static_cast<double>(static_cast<long double>(result) - exact));
    rows.push_back({method, family, redu::to_string(dtype), to_string(data), n, static_cast<double>(result),
                    hex_bits(result), abs_error, abs_error / std::fabs(static_cast<double>(exact)), distinct,
                    options.repeats, determinism != redu::Determinism::not_guaranteed, redu::to_string(determinism)});
  };
  add("cpu.sequential", "cpu", sequential_sum(x), 1, redu::Determinism::gpu_to_gpu);
  add("cpu.pairwise", "cpu", pairwise(x.data(), n), 1, redu::Determinism::gpu_to_gpu);

  redu::DeviceBuffer input;
  REDU_TRY(redu::upload(x, input));
  redu::ProblemBuffers buffers; // one output and a workspace that grows, shared by the implementations
  for (const redu::Reduction* impl : redu::registry())
  {
    const redu::Info& info = impl->info();
    if (!info.supports(redu::Kind::full) || !info.supports(dtype) || !info.supports(redu::Op::sum) || n > info.max_n
        || !redu::available_here(*impl).ok)
    {
      continue;
    }
    REDU_TRY(redu::make_problem(impl, {redu::Kind::full, dtype, redu::Op::sum, n, 1, input.data()}, buffers));
    T first      = 0;
    int distinct = 0;
    if (const Status s = run_repeatedly(*impl, buffers.problem, buffers.workspace, options.repeats, first, distinct);
        !s.ok())
    {
      return Status::invalid(info.name + ": " + s.message());
    }
    add(info.name, info.family, first, distinct, info.determinism_of(dtype, redu::Op::sum));
  }
  return Status::success();
}

Status study(const Options& options, std::vector<Row>& rows)
{
  std::mt19937_64 rng(2026);
  for (int k = min_log2; k <= options.max_log2; k += 2)
  {
    const std::int64_t n = std::int64_t{1} << k;
    for (Data data : all_data)
    {
      REDU_TRY(study_one<float>(options, data, n, rng, rows));
      REDU_TRY(study_one<double>(options, data, n, rng, rows));
    }
    std::cout << "n = 2^" << k << " done\n";
  }
  return Status::success();
}

void write_json(std::ostream& os, const std::vector<report::ContextEntry>& provenance, const Options& options,
                const std::vector<Row>& rows)
{
  report::JsonWriter json(os);
  json.begin_object().key("context").begin_object().text_members(provenance);
  json.key("data").string("f32 and f64; uniform01: uniform [0,1); uniform-11: uniform [-1,1); cancelling: n/4 "
                           "pairs x, -x with |x| < 2^20 and n/2 values in [0,1), shuffled");
  json.key("reference").string("exact sum (integer limbs, handwritten/precision/exact_host_sum.hpp) to about "
                                "twice the element precision");
  json.key("repeats").integer(options.repeats);
  json.end_object();
  json.key("results").begin_array();
  for (const Row& r : rows)
  {
    json.begin_object(report::Layout::one_line);
    json.key("method").string(r.method).key("family").string(r.family).key("dtype").string(r.dtype);
    json.key("data").string(r.data).key("n").integer(r.n);
    json.key("result").number(r.result).key("result_bits").string(r.result_bits);
    json.key("abs_error").number(r.abs_error).key("rel_error").number(r.rel_error);
    json.key("distinct_results").integer(r.distinct).key("repeats").integer(r.repeats);
    json.key("declared_deterministic").boolean(r.declared_deterministic).key("determinism").string(r.determinism);
    json.end_object();
  }
  json.end_array().end_object();
}

} // namespace

int main(int argc, char** argv)
{
  Options options;
  if (const std::optional<int> exit_status = command_line(options).early_exit(argc, argv))
  {
    return *exit_status;
  }
  const auto study_and_write = [&](const report::MeasuredGpu& gpu, std::ostream& out, std::size_t& written) {
    std::vector<Row> rows;
    REDU_TRY(study(options, rows));
    write_json(out, report::provenance(program, options.code_id, gpu), options, rows);
    written = rows.size();
    return Status::success();
  };
  return report::run_study(program, options.out, study_and_write);
}
