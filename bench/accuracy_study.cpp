// accuracy_study: how far float32 sums land from the exact value, per implementation and n, and how
// often a run-to-run repeat changes the bits. Feeds notebooks/04_accuracy_and_determinism.ipynb.
//
// Data: uniform [0, 1) floats, all positive, so the running sums grow and rounding error accumulates
// the way it does in real workloads (a mixed-sign test would hide it). The reference is a long double
// compensated sum of the same floats. Besides every registered float-sum implementation, two CPU
// baselines: the naive sequential float loop and a pairwise (recursive halving) float sum.
//
// usage: accuracy_study --out=FILE.json [--code_id=ID] [--max_log2=K] [--repeats=R]
#include "common/host/device_buffer.hpp"
#include "common/host/device_info.hpp"
#include "common/contract/reduction.hpp"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace
{

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

std::string json_escape(const std::string& s)
{
  std::string out;
  for (char c : s)
  {
    out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  }
  return out;
}

int fail(const std::string& message, int code)
{
  std::cerr << "accuracy_study: " << message << "\n";
  return code;
}

} // namespace

int main(int argc, char** argv)
{
  std::string out_path, code_id = "unknown";
  int max_log2 = 26, repeats = 10;
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    if (arg.rfind("--out=", 0) == 0)
    {
      out_path = arg.substr(6);
    }
    else if (arg.rfind("--code_id=", 0) == 0)
    {
      code_id = arg.substr(10);
    }
    else if (arg.rfind("--max_log2=", 0) == 0)
    {
      max_log2 = std::atoi(arg.c_str() + 11);
    }
    else if (arg.rfind("--repeats=", 0) == 0)
    {
      repeats = std::atoi(arg.c_str() + 10);
    }
    else
    {
      return fail("unknown option " + arg + "\nusage: accuracy_study --out=FILE.json [--code_id=ID] [--max_log2=K] "
                                             "[--repeats=R]",
                  2);
    }
  }
  if (out_path.empty() || max_log2 < 10 || max_log2 > 30 || repeats < 2)
  {
    return fail("need --out=FILE, 10 <= max_log2 <= 30 and repeats >= 2", 2);
  }
  if (const std::string reason = redu::no_gpu_reason(); !reason.empty())
  {
    return fail("cannot run: " + reason, 1);
  }
  redu::DeviceInfo device;
  if (const redu::Status s = redu::query_device(0, device); !s.ok())
  {
    return fail(s.message(), 1);
  }

  std::vector<Row> rows;
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (int k = 10; k <= max_log2; k += 2)
  {
    const std::int64_t n = std::int64_t{1} << k;
    std::vector<float> x(static_cast<std::size_t>(n));
    for (float& v : x)
    {
      v = uniform(rng);
    }
    long double exact = 0, compensation = 0;
    float sequential  = 0;
    for (float v : x)
    {
      const long double t = exact + v;
      compensation += (std::fabs(exact) >= v) ? (exact - t) + v : (v - t) + exact;
      exact = t;
      sequential += v;
    }
    exact += compensation;
    const auto add = [&](const std::string& method, const std::string& family, double result, int distinct,
                         bool deterministic) {
      const double abs_error = std::fabs(static_cast<double>(result - exact));
      rows.push_back({method, family, n, result, abs_error, abs_error / static_cast<double>(exact), distinct, repeats,
                      deterministic});
    };
    add("cpu.sequential_float", "cpu", sequential, 1, true);
    add("cpu.pairwise_float", "cpu", pairwise(x.data(), n), 1, true);

    redu::DeviceBuffer input, output, ws_buffer;
    if (!input.allocate(x.size() * sizeof(float)).ok() || !output.allocate(sizeof(float)).ok()
        || cudaMemcpy(input.data(), x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess)
    {
      return fail("cannot allocate or upload " + std::to_string(n) + " floats", 1);
    }
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
      if (const redu::Status s = redu::allocate_workspace(*impl, p, ws_buffer, ws); !s.ok())
      {
        return fail(s.message(), 1);
      }
      std::set<std::uint32_t> bit_patterns;
      float first = 0;
      for (int r = 0; r < repeats; ++r)
      {
        float got = 0;
        const redu::Status s = redu::run(*impl, p, ws, nullptr);
        if (!s.ok() || cudaMemcpy(&got, output.data(), sizeof got, cudaMemcpyDeviceToHost) != cudaSuccess)
        {
          return fail(info.name + ": " + s.message(), 1);
        }
        std::uint32_t bits = 0;
        std::memcpy(&bits, &got, sizeof bits);
        bit_patterns.insert(bits);
        if (r == 0)
        {
          first = got;
        }
      }
      add(info.name, info.family, first, static_cast<int>(bit_patterns.size()),
          info.is_deterministic(redu::DType::f32, redu::Op::sum));
    }
    std::cout << "n = 2^" << k << " done\n";
  }

  std::ofstream out(out_path);
  out << "{\n \"context\": {\"gpu_name\": \"" << json_escape(device.name) << "\", \"gpu_slug\": \""
      << redu::gpu_slug(device.name) << "\", \"code_id\": \"" << json_escape(code_id)
      << "\", \"data\": \"uniform [0,1) float32, all positive\", \"reference\": \"long double compensated sum\", "
      << "\"repeats\": " << repeats << "},\n \"results\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i)
  {
    const Row& r = rows[i];
    char line[512];
    std::snprintf(line, sizeof line,
                  "  {\"method\": \"%s\", \"family\": \"%s\", \"n\": %lld, \"result\": %.9g, \"abs_error\": %.6g, "
                  "\"rel_error\": %.6g, \"distinct_results\": %d, \"repeats\": %d, \"declared_deterministic\": %s}%s\n",
                  r.method.c_str(), r.family.c_str(), static_cast<long long>(r.n), r.result, r.abs_error, r.rel_error,
                  r.distinct, r.repeats, r.declared_deterministic ? "true" : "false", i + 1 < rows.size() ? "," : "");
    out << line;
  }
  out << " ]\n}\n";
  if (!out)
  {
    return fail("cannot write " + out_path, 1);
  }
  std::cout << "accuracy_study: wrote " << rows.size() << " rows to " << out_path << "\n";
  return 0;
}
