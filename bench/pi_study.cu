// pi_study: the seed document's pi program (001, "Reduction on CUDA") measured properly.
//
// For n = 2^10 .. 2^28 rectangles it computes pi by the midpoint rule with every method of handwritten/pi:
// the seed's own recursive driver with Harris's reduce0/1/2 (n <= 2^16 only: it is slow by construction),
// calcRectangles followed by every registered reduction that sums a full f32 array, a fused kernel, Thrust's
// transform_reduce and CUB's TransformReduce. For each it reports pi, |pi - pi_true| split into the midpoint
// rule's error, the rounding of the heights to float and the float summation, and the time from CUDA events
// (warm-up, median of repeats). For the seed's driver it also reports the seed's own measure, host clock()
// around the asynchronous launch calls, which is what made its three kernels look equally fast.
//
//   pi_study [--out=FILE.json] [--code_id=ID]
// Exit status: 0 success, 1 no GPU or a CUDA failure, 2 bad command line.
#include "common/host/device_info.hpp"
#include "common/contract/reduction.hpp"
#include "handwritten/pi/pi.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cub/version.cuh>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace
{

using redu::Status;
namespace pi = redu::pi;

constexpr int min_log2      = 10;
constexpr int max_log2      = 28;
constexpr int seed_max_log2 = 16;
constexpr int warmups       = 2;
constexpr int repeats       = 11;
constexpr int seed_warmups  = 1;
constexpr int seed_repeats  = 3;

struct Options
{
  std::string out;
  std::string code_id = "unknown";
  bool help           = false;
};

std::string usage()
{
  return "usage: pi_study [--out=FILE.json] [--code_id=ID]\n"
         "  --out=FILE.json  also write the results as JSON\n"
         "  --code_id=ID     provenance id of the code (scripts/code_id.sh), recorded in the JSON context\n";
}

// Returns an error message for an unknown or malformed option, empty on success.
std::string parse(int argc, char** argv, Options& options)
{
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    const auto value_of   = [&](const std::string& key) -> std::optional<std::string> {
      if (arg.rfind(key + "=", 0) == 0 && arg.size() > key.size() + 1)
      {
        return arg.substr(key.size() + 1);
      }
      return std::nullopt;
    };
    if (arg == "--help" || arg == "-h")
    {
      options.help = true;
    }
    else if (auto out = value_of("--out"))
    {
      options.out = *out;
    }
    else if (auto code_id = value_of("--code_id"))
    {
      options.code_id = *code_id;
    }
    else
    {
      return "unknown or malformed option '" + arg + "'";
    }
  }
  return "";
}

double median(std::vector<double> samples)
{
  std::sort(samples.begin(), samples.end());
  const std::size_t mid = samples.size() / 2;
  return samples.size() % 2 == 1 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
}

struct Reference
{
  std::int64_t n             = 0;
  double midpoint_pi         = 0; // exact heights, double sum
  double float_heights_pi    = 0; // the float heights every method adds, double sum
  double midpoint_error      = 0; // |midpoint_pi - pi|
  double height_rounding     = 0; // |float_heights_pi - midpoint_pi|
  double midpoint_error_theo = 0; // 1 / (12 n^2)
};

struct Row
{
  std::string method;
  std::int64_t n   = 0;
  double pi_value  = 0;
  double event_ms  = 0;
  int repeats      = 0;
  bool synchronous = false;
  std::optional<double> host_clock_ms;
};

class Events
{
public:
  Status create()
  {
    REDU_CUDA_TRY(cudaEventCreate(&start));
    REDU_CUDA_TRY(cudaEventCreate(&stop));
    return Status::success();
  }
  ~Events()
  {
    if (start != nullptr)
    {
      cudaEventDestroy(start);
    }
    if (stop != nullptr)
    {
      cudaEventDestroy(stop);
    }
  }
  // Milliseconds between start and stop, once stop has completed.
  Status elapsed(double& ms) const
  {
    float value = 0;
    REDU_CUDA_TRY(cudaEventSynchronize(stop));
    REDU_CUDA_TRY(cudaEventElapsedTime(&value, start, stop));
    ms = value;
    return Status::success();
  }

  cudaEvent_t start = nullptr;
  cudaEvent_t stop  = nullptr;
};

// Allocation in prepare(), then warm-ups, then events around each enqueue() alone; pi from the last call.
Status time_method(pi::Method& method, std::int64_t n, cudaStream_t stream, const Events& events, Row& row)
{
  REDU_TRY(method.prepare(n));
  for (int i = 0; i < warmups; ++i)
  {
    REDU_TRY(method.enqueue(stream));
  }
  REDU_CUDA_TRY(cudaStreamSynchronize(stream));
  std::vector<double> samples;
  for (int i = 0; i < repeats; ++i)
  {
    REDU_CUDA_TRY(cudaEventRecord(events.start, stream));
    REDU_TRY(method.enqueue(stream));
    REDU_CUDA_TRY(cudaEventRecord(events.stop, stream));
    double ms = 0;
    REDU_TRY(events.elapsed(ms));
    samples.push_back(ms);
  }
  REDU_TRY(method.fetch(stream, row.pi_value));
  row.method      = method.name();
  row.n           = n;
  row.event_ms    = median(samples);
  row.repeats     = repeats;
  row.synchronous = method.synchronous();
  return Status::success();
}

// The seed's driver is synchronous and uses the legacy default stream; the events bracket the whole call.
Status time_seed(pi::SeedKernel kernel, std::int64_t n, const Events& events, Row& row)
{
  pi::SeedDriverResult result;
  for (int i = 0; i < seed_warmups; ++i)
  {
    REDU_TRY(pi::seed_driver_pi(kernel, n, result));
  }
  std::vector<double> event_samples, clock_samples;
  for (int i = 0; i < seed_repeats; ++i)
  {
    REDU_CUDA_TRY(cudaEventRecord(events.start, nullptr));
    REDU_TRY(pi::seed_driver_pi(kernel, n, result));
    REDU_CUDA_TRY(cudaEventRecord(events.stop, nullptr));
    double ms = 0;
    REDU_TRY(events.elapsed(ms));
    event_samples.push_back(ms);
    clock_samples.push_back(result.host_clock_seconds * 1e3);
  }
  row.method        = std::string("seed.") + pi::to_string(kernel);
  row.n             = n;
  row.pi_value      = result.pi;
  row.event_ms      = median(event_samples);
  row.repeats       = seed_repeats;
  row.synchronous   = true;
  row.host_clock_ms = median(clock_samples);
  return Status::success();
}

std::string json_string(const std::string& text)
{
  std::string out = "\"";
  for (const char c : text)
  {
    if (c == '"' || c == '\\')
    {
      out += '\\';
      out += c;
    }
    else if (static_cast<unsigned char>(c) < 0x20)
    {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned int>(static_cast<unsigned char>(c)));
      out += buffer;
    }
    else
    {
      out += c;
    }
  }
  return out + "\"";
}

std::string json_number(double value)
{
  if (!std::isfinite(value))
  {
    return "null";
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

std::string cccl_version()
{
  return std::to_string(CUB_VERSION / 100000) + "." + std::to_string(CUB_VERSION / 100 % 1000) + "."
         + std::to_string(CUB_VERSION % 100);
}

void write_json(std::ostream& os, const redu::DeviceInfo& device, const Options& options,
                const std::vector<Reference>& references, const std::vector<Row>& rows)
{
  os << "{\n  \"context\": {\n";
  os << "    \"program\": \"pi_study\",\n";
  os << "    \"code_id\": " << json_string(options.code_id) << ",\n";
  os << "    \"gpu\": " << json_string(device.name) << ",\n";
  os << "    \"compute_capability\": "
     << json_string(std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor)) << ",\n";
  os << "    \"sm_count\": " << device.sm_count << ",\n";
  os << "    \"driver_version\": " << json_string(redu::cuda_version_string(device.driver_version)) << ",\n";
  os << "    \"cuda_runtime_version\": " << json_string(redu::cuda_version_string(device.runtime_version)) << ",\n";
  os << "    \"cccl_version\": " << json_string(cccl_version()) << ",\n";
#ifdef REDU_BUILD_TYPE
  os << "    \"build_type\": " << json_string(REDU_BUILD_TYPE) << ",\n";
#endif
  os << "    \"reference_pi\": " << json_number(pi::reference_pi) << ",\n";
  os << "    \"warmups\": " << warmups << ",\n";
  os << "    \"repeats\": " << repeats << ",\n";
  os << "    \"seed_warmups\": " << seed_warmups << ",\n";
  os << "    \"seed_repeats\": " << seed_repeats << ",\n";
  os << "    \"timing\": "
     << json_string("event_ms: median of CUDA-event times around one call on one stream after warm-ups, L2 not "
                    "flushed; buffers allocated before timing except where the method allocates inside the call "
                    "(thrust.transform_reduce; the seed driver, whose events bracket the whole synchronous call). "
                    "host_clock_ms: the seed's own measure, std::clock() summed around its asynchronous launch calls "
                    "and its host finish, median of the same repeats")
     << ",\n";
  os << "    \"errors\": "
     << json_string(
          "abs_error = |pi - reference_pi| = midpoint rule (midpoint_error) + rounding of the heights to "
          "float (height_rounding_error) + float summation (summation_error = |pi - float_heights_pi_double|),"
          " as signed terms; the references sum in double on the device")
     << "\n  },\n";

  os << "  \"references\": [";
  for (std::size_t i = 0; i < references.size(); ++i)
  {
    const Reference& r = references[i];
    os << (i == 0 ? "\n" : ",\n") << "    {\"n\": " << r.n << ", \"midpoint_pi_double\": " << json_number(r.midpoint_pi)
       << ", \"midpoint_error\": " << json_number(r.midpoint_error)
       << ", \"midpoint_error_theory\": " << json_number(r.midpoint_error_theo)
       << ", \"float_heights_pi_double\": " << json_number(r.float_heights_pi)
       << ", \"height_rounding_error\": " << json_number(r.height_rounding) << "}";
  }
  os << "\n  ],\n  \"results\": [";
  for (std::size_t i = 0; i < rows.size(); ++i)
  {
    const Row& row = rows[i];
    const auto ref =
      std::find_if(references.begin(), references.end(), [&](const Reference& r) { return r.n == row.n; });
    os << (i == 0 ? "\n" : ",\n") << "    {\"method\": " << json_string(row.method) << ", \"n\": " << row.n
       << ", \"pi\": " << json_number(row.pi_value)
       << ", \"abs_error\": " << json_number(std::fabs(row.pi_value - pi::reference_pi))
       << ", \"midpoint_error\": " << json_number(ref->midpoint_error)
       << ", \"height_rounding_error\": " << json_number(ref->height_rounding)
       << ", \"summation_error\": " << json_number(std::fabs(row.pi_value - ref->float_heights_pi))
       << ", \"event_ms\": " << json_number(row.event_ms) << ", \"repeats\": " << row.repeats
       << ", \"synchronous\": " << (row.synchronous ? "true" : "false");
    if (row.host_clock_ms)
    {
      os << ", \"host_clock_ms\": " << json_number(*row.host_clock_ms);
    }
    os << "}";
  }
  os << "\n  ]\n}\n";
}

void print_reference(const Reference& r)
{
  std::printf("\nn = %lld (2^%d): midpoint rule in double %.15f, error %.3e (theory 1/(12n^2) = %.3e); "
              "float heights cost %.3e\n",
              static_cast<long long>(r.n), static_cast<int>(std::lround(std::log2(static_cast<double>(r.n)))),
              r.midpoint_pi, r.midpoint_error, r.midpoint_error_theo, r.height_rounding);
  std::printf("  %-40s %-17s %-10s %-10s %-11s %s\n", "method", "pi", "|pi-PI|", "sum error", "event ms",
              "host clock ms");
}

void print_row(const Row& row, const Reference& r)
{
  std::printf("  %-40s %.15f %.3e %.3e %11.4f", row.method.c_str(), row.pi_value,
              std::fabs(row.pi_value - pi::reference_pi), std::fabs(row.pi_value - r.float_heights_pi), row.event_ms);
  if (row.host_clock_ms)
  {
    std::printf(" %.4f", *row.host_clock_ms);
  }
  std::printf("%s\n", row.synchronous ? "  (synchronous)" : "");
}

// Every pi method for one n: fresh objects, so each size holds only its own buffers.
std::vector<std::function<Status(std::unique_ptr<pi::Method>&)>> device_methods()
{
  std::vector<std::function<Status(std::unique_ptr<pi::Method>&)>> makers;
  for (const redu::Reduction* impl : redu::registry())
  {
    const redu::Info& info = impl->info();
    if (info.supports(redu::Kind::full) && info.supports(redu::DType::f32) && info.supports(redu::Op::sum))
    {
      const std::string name = info.name;
      makers.emplace_back([name](std::unique_ptr<pi::Method>& m) { return pi::make_registered_method(name, m); });
    }
  }
  makers.emplace_back([](std::unique_ptr<pi::Method>& m) {
    m = pi::make_fused_method();
    return Status::success();
  });
  makers.emplace_back([](std::unique_ptr<pi::Method>& m) {
    m = pi::make_thrust_method();
    return Status::success();
  });
  makers.emplace_back([](std::unique_ptr<pi::Method>& m) {
    m = pi::make_cub_method();
    return Status::success();
  });
  return makers;
}

Status study(const Options& options, const redu::DeviceInfo& device)
{
  cudaStream_t stream = nullptr;
  REDU_CUDA_TRY(cudaStreamCreate(&stream));
  struct StreamGuard
  {
    cudaStream_t s;
    ~StreamGuard() { cudaStreamDestroy(s); }
  } guard{stream};
  Events events;
  REDU_TRY(events.create());
  // Open the output first, so a bad path fails before the sweep rather than after it.
  std::ofstream file;
  if (!options.out.empty())
  {
    file.open(options.out);
    if (!file)
    {
      return Status::invalid("cannot open " + options.out + " for writing");
    }
  }

  std::vector<Reference> references;
  std::vector<Row> rows;
  const auto makers = device_methods();
  for (int log2n = min_log2; log2n <= max_log2; ++log2n)
  {
    const std::int64_t n = std::int64_t{1} << log2n;
    Reference r;
    r.n = n;
    REDU_TRY(pi::midpoint_pi_double(n, stream, r.midpoint_pi));
    REDU_TRY(pi::float_heights_pi_double(n, stream, r.float_heights_pi));
    r.midpoint_error      = std::fabs(r.midpoint_pi - pi::reference_pi);
    r.height_rounding     = std::fabs(r.float_heights_pi - r.midpoint_pi);
    r.midpoint_error_theo = pi::midpoint_error_theory(n);
    references.push_back(r);
    print_reference(r);

    if (log2n <= seed_max_log2)
    {
      for (const pi::SeedKernel kernel : {pi::SeedKernel::reduce0, pi::SeedKernel::reduce1, pi::SeedKernel::reduce2})
      {
        Row row;
        REDU_TRY(time_seed(kernel, n, events, row));
        print_row(row, r);
        rows.push_back(row);
      }
    }
    for (const auto& make : makers)
    {
      std::unique_ptr<pi::Method> method;
      REDU_TRY(make(method));
      if (n > method->max_n())
      {
        continue;
      }
      Row row;
      REDU_TRY(time_method(*method, n, stream, events, row));
      print_row(row, r);
      rows.push_back(row);
    }
  }

  if (!options.out.empty())
  {
    write_json(file, device, options, references, rows);
    file.close();
    if (!file)
    {
      return Status::invalid("could not write " + options.out);
    }
    std::printf("\nwrote %s\n", options.out.c_str());
  }
  return Status::success();
}

} // namespace

int main(int argc, char** argv)
{
  Options options;
  if (const std::string error = parse(argc, argv, options); !error.empty())
  {
    std::cerr << "pi_study: " << error << "\n" << usage();
    return 2;
  }
  if (options.help)
  {
    std::cout << usage();
    return 0;
  }
  if (const std::string reason = redu::no_gpu_reason(); !reason.empty())
  {
    std::cerr << "pi_study: " << reason << "\n";
    return 1;
  }
  redu::DeviceInfo device;
  if (const Status status = redu::query_device(0, device); !status.ok())
  {
    std::cerr << "pi_study: " << status.message() << "\n";
    return 1;
  }
  std::printf("pi_study on %s (sm_%d%d, %d SMs), code_id %s\n", device.name.c_str(), device.cc_major, device.cc_minor,
              device.sm_count, options.code_id.c_str());
  if (const Status status = study(options, device); !status.ok())
  {
    std::cerr << "pi_study: " << status.message() << "\n";
    return 1;
  }
  return 0;
}
