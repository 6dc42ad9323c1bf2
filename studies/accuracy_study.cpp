// accuracy_study: how far float32 sums land from the exact value, per implementation and n, and how
// often a run-to-run repeat changes the bits. Feeds notebooks/04_accuracy_and_determinism.ipynb.
//
// Data: uniform [0, 1) floats, all positive, so the running sums grow and rounding error accumulates
// the way it does in real workloads (a mixed-sign test would hide it). The reference is a long double
// compensated sum of the same floats. Besides every registered float-sum implementation, two CPU
// baselines: the naive sequential float loop and a pairwise (recursive halving) float sum.
//
// `accuracy_study --help` lists the options. Exit status: 0 success, 1 no GPU or a CUDA failure, 2 bad
// command line.
#include "common/contract/reduction.hpp"
#include "common/host/device_buffer.hpp"
#include "report/command_line.hpp"
#include "report/json_writer.hpp"
#include "report/measured_gpu.hpp"
#include "report/provenance.hpp"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
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
  std::int64_t n;
  double result;
  double abs_error;
  double rel_error;
  int distinct;
  int repeats;
  bool declared_deterministic;
};

float pairwise(const float* x, std::int64_t n)
{
  if (n <= 8)
  {
    float s = 0;
    for (std::int64_t i = 0; i < n; ++i)
    {
      s += x[i];
    }
    return s;
  }
  const std::int64_t half = n / 2;
  return pairwise(x, half) + pairwise(x + half, n - half);
}

// Long double with compensation (Neumaier): exact to far below float's rounding for these sizes.
long double compensated_sum(const std::vector<float>& x)
{
  long double sum = 0, compensation = 0;
  for (const float v : x)
  {
    const long double t = sum + v;
    compensation += (std::fabs(sum) >= v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  return sum + compensation;
}

float sequential_sum(const std::vector<float>& x)
{
  float sum = 0;
  for (const float v : x)
  {
    sum += v;
  }
  return sum;
}

// One full float sum run `repeats` times: the first result, and how many distinct bit patterns came back.
Status run_repeatedly(const redu::Reduction& impl, const redu::Problem& p, redu::Workspace ws, int repeats,
                      float& first, int& distinct)
{
  std::set<std::uint32_t> bit_patterns;
  for (int r = 0; r < repeats; ++r)
  {
    REDU_TRY(redu::run(impl, p, ws, nullptr));
    float got = 0;
    REDU_CUDA_TRY(cudaMemcpy(&got, p.output, sizeof got, cudaMemcpyDeviceToHost));
    std::uint32_t bits = 0;
    std::memcpy(&bits, &got, sizeof bits);
    bit_patterns.insert(bits);
    if (r == 0)
    {
      first = got;
    }
  }
  distinct = static_cast<int>(bit_patterns.size());
  return Status::success();
}

Status study(const Options& options, std::vector<Row>& rows)
{
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (int k = min_log2; k <= options.max_log2; k += 2)
  {
    const std::int64_t n = std::int64_t{1} << k;
    std::vector<float> x(static_cast<std::size_t>(n));
    for (float& v : x)
    {
      v = uniform(rng);
    }
    const long double exact = compensated_sum(x);
    const auto add = [&](const std::string& method, const std::string& family, double result, int distinct,
                         bool deterministic) {
      const double abs_error = std::fabs(static_cast<double>(result - exact));
      rows.push_back({method, family, n, result, abs_error, abs_error / static_cast<double>(exact), distinct,
                      options.repeats, deterministic});
    };
    add("cpu.sequential_float", "cpu", sequential_sum(x), 1, true);
    add("cpu.pairwise_float", "cpu", pairwise(x.data(), n), 1, true);

    redu::DeviceBuffer input, output, ws_buffer;
    REDU_TRY(input.allocate(x.size() * sizeof(float)));
    REDU_TRY(output.allocate(sizeof(float)));
    REDU_CUDA_TRY(cudaMemcpy(input.data(), x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
    for (const redu::Reduction* impl : redu::registry())
    {
      const redu::Info& info = impl->info();
      if (!info.supports(redu::Kind::full) || !info.supports(redu::DType::f32) || !info.supports(redu::Op::sum)
          || n > info.max_n)
      {
        continue;
      }
      const redu::Problem p{redu::Kind::full, redu::DType::f32, redu::Op::sum, n, 1, input.data(), output.data()};
      redu::Workspace ws;
      REDU_TRY(redu::allocate_workspace(*impl, p, ws_buffer, ws));
      float first  = 0;
      int distinct = 0;
      if (const Status s = run_repeatedly(*impl, p, ws, options.repeats, first, distinct); !s.ok())
      {
        return Status::invalid(info.name + ": " + s.message());
      }
      add(info.name, info.family, first, distinct, info.is_deterministic(redu::DType::f32, redu::Op::sum));
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
  json.key("data").string("uniform [0,1) float32, all positive");
  json.key("reference").string("long double compensated sum");
  json.key("repeats").integer(options.repeats);
  json.end_object();
  json.key("results").begin_array();
  for (const Row& r : rows)
  {
    json.begin_object(report::Layout::one_line);
    json.key("method").string(r.method).key("family").string(r.family).key("n").integer(r.n);
    json.key("result").number(r.result).key("abs_error").number(r.abs_error).key("rel_error").number(r.rel_error);
    json.key("distinct_results").integer(r.distinct).key("repeats").integer(r.repeats);
    json.key("declared_deterministic").boolean(r.declared_deterministic);
    json.end_object();
  }
  json.end_array().end_object();
}

int fail(const std::string& message)
{
  std::cerr << program << ": " << message << "\n";
  return 1;
}

} // namespace

int main(int argc, char** argv)
{
  Options options;
  if (const std::optional<int> exit_status = command_line(options).early_exit(argc, argv))
  {
    return *exit_status;
  }
  report::MeasuredGpu gpu;
  if (const Status s = report::measure_gpu(nullptr, gpu); !s.ok())
  {
    return fail("cannot run: " + s.message());
  }
  // Opened first, so a bad path fails before the study rather than after it.
  std::ofstream out(options.out);
  if (!out)
  {
    return fail("cannot open " + options.out + " for writing");
  }

  std::vector<Row> rows;
  if (const Status s = study(options, rows); !s.ok())
  {
    return fail(s.message());
  }
  write_json(out, report::provenance(program, options.code_id, gpu), options, rows);
  out.close();
  if (!out)
  {
    return fail("cannot write " + options.out);
  }
  std::cout << program << ": wrote " << rows.size() << " rows to " << options.out << "\n";
  return 0;
}
