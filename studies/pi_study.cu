// pi_study: the seed document's pi program (001, "Reduction on CUDA") measured properly.
//
// For n = 2^10 .. 2^28 rectangles it computes pi by the midpoint rule with every method of studies/pi:
// the seed's own recursive driver with Harris's reduce0/1/2 (n <= 2^16 only: it is slow by construction),
// calcRectangles followed by every registered reduction that sums a full f32 array, a fused kernel, Thrust's
// transform_reduce and CUB's TransformReduce. For each it reports pi, |pi - pi_true| split into the midpoint
// rule's error, the rounding of the heights to float and the float summation, and the time from CUDA events
// (warm-up, median of repeats). For the seed's driver it also reports the seed's own measure, host clock()
// around the asynchronous launch calls, which is what made its three kernels look equally fast.
//
// `pi_study --help` lists the options. Exit status: 0 success, 1 no GPU or a CUDA failure, 2 bad command line.
#include "common/contract/reduction.hpp"
#include "report/command_line.hpp"
#include "report/event_timer.hpp"
#include "report/json_writer.hpp"
#include "report/measured_gpu.hpp"
#include "report/provenance.hpp"
#include "studies/pi/pi.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
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
namespace pi     = redu::pi;
namespace report = redu::report;

constexpr const char* program = "pi_study";

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
};

report::CommandLine command_line(Options& o)
{
  report::CommandLine command_line(program);
  command_line.option("--out", "FILE.json", "also write the results and their context as JSON", report::text(o.out))
    .option("--code_id", "ID", "provenance id of the code (scripts/code_id.sh), recorded in the context",
            report::text(o.code_id));
  return command_line;
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

// Allocation in prepare(), then warm-ups, then events around each enqueue() alone; pi from the last call.
Status time_method(pi::Method& method, std::int64_t n, cudaStream_t stream, report::EventTimer& timer, Row& row)
{
  REDU_TRY(method.prepare(n));
  std::vector<double> samples_ms;
  REDU_TRY(timer.time_calls(stream, warmups, repeats, [&] { return method.enqueue(stream); }, samples_ms));
  REDU_TRY(method.fetch(stream, row.pi_value));
  row.method      = method.name();
  row.n           = n;
  row.event_ms    = report::median(samples_ms);
  row.repeats     = repeats;
  row.synchronous = method.synchronous();
  return Status::success();
}

// The seed's driver is synchronous and uses the legacy default stream; the events bracket the whole call.
Status time_seed(pi::SeedKernel kernel, std::int64_t n, report::EventTimer& timer, Row& row)
{
  pi::SeedDriverResult result;
  std::vector<double> event_samples, clock_samples;
  const auto call = [&] {
    REDU_TRY(pi::seed_driver_pi(kernel, n, result));
    clock_samples.push_back(result.host_clock_seconds * 1e3);
    return Status::success();
  };
  REDU_TRY(timer.time_calls(nullptr, seed_warmups, seed_repeats, call, event_samples));
  clock_samples.erase(clock_samples.begin(), clock_samples.begin() + seed_warmups); // the warm-ups' clocks
  row.method        = std::string("seed.") + pi::to_string(kernel);
  row.n             = n;
  row.pi_value      = result.pi;
  row.event_ms      = report::median(event_samples);
  row.repeats       = seed_repeats;
  row.synchronous   = true;
  row.host_clock_ms = report::median(clock_samples);
  return Status::success();
}

void write_json(std::ostream& os, const std::vector<report::ContextEntry>& provenance,
                const std::vector<Reference>& references, const std::vector<Row>& rows)
{
  report::JsonWriter json(os);
  json.begin_object().key("context").begin_object().text_members(provenance);
  json.key("reference_pi").number(pi::reference_pi);
  json.key("warmups").integer(warmups).key("repeats").integer(repeats);
  json.key("seed_warmups").integer(seed_warmups).key("seed_repeats").integer(seed_repeats);
  json.key("timing").string(
    "event_ms: median of CUDA-event times around one call on one stream after warm-ups, L2 not flushed; buffers "
    "allocated before timing except where the method allocates inside the call (thrust.transform_reduce; the seed "
    "driver, whose events bracket the whole synchronous call). host_clock_ms: the seed's own measure, std::clock() "
    "summed around its asynchronous launch calls and its host finish, median of the same repeats");
  json.key("errors").string(
    "abs_error = |pi - reference_pi| = midpoint rule (midpoint_error) + rounding of the heights to float "
    "(height_rounding_error) + float summation (summation_error = |pi - float_heights_pi_double|), as signed terms; "
    "the references sum in double on the device");
  json.end_object();

  json.key("references").begin_array();
  for (const Reference& r : references)
  {
    json.begin_object(report::Layout::one_line).key("n").integer(r.n);
    json.key("midpoint_pi_double").number(r.midpoint_pi).key("midpoint_error").number(r.midpoint_error);
    json.key("midpoint_error_theory").number(r.midpoint_error_theo);
    json.key("float_heights_pi_double").number(r.float_heights_pi);
    json.key("height_rounding_error").number(r.height_rounding);
    json.end_object();
  }
  json.end_array();

  json.key("results").begin_array();
  for (const Row& row : rows)
  {
    const auto ref =
      std::find_if(references.begin(), references.end(), [&](const Reference& r) { return r.n == row.n; });
    json.begin_object(report::Layout::one_line).key("method").string(row.method).key("n").integer(row.n);
    json.key("pi").number(row.pi_value).key("abs_error").number(std::fabs(row.pi_value - pi::reference_pi));
    json.key("midpoint_error").number(ref->midpoint_error);
    json.key("height_rounding_error").number(ref->height_rounding);
    json.key("summation_error").number(std::fabs(row.pi_value - ref->float_heights_pi));
    json.key("event_ms").number(row.event_ms).key("repeats").integer(row.repeats);
    json.key("synchronous").boolean(row.synchronous);
    if (row.host_clock_ms)
    {
      json.key("host_clock_ms").number(*row.host_clock_ms);
    }
    json.end_object();
  }
  json.end_array().end_object();
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
    if (info.supports(redu::Kind::full) && info.supports(redu::DType::f32) && info.supports(redu::Op::sum)
        && redu::available_here(*impl).ok)
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

Status study(const Options& options, const report::MeasuredGpu& gpu)
{
  cudaStream_t stream = nullptr;
  REDU_CUDA_TRY(cudaStreamCreate(&stream));
  struct StreamGuard
  {
    cudaStream_t s;
    ~StreamGuard() { cudaStreamDestroy(s); }
  } guard{stream};
  report::EventTimer timer;
  REDU_TRY(timer.init());
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
        REDU_TRY(time_seed(kernel, n, timer, row));
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
      REDU_TRY(time_method(*method, n, stream, timer, row));
      print_row(row, r);
      rows.push_back(row);
    }
  }

  if (!options.out.empty())
  {
    write_json(file, report::provenance(program, options.code_id, gpu), references, rows);
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
  if (const std::optional<int> exit_status = command_line(options).early_exit(argc, argv))
  {
    return *exit_status;
  }
  report::MeasuredGpu gpu;
  if (const Status status = report::measure_gpu(nullptr, gpu); !status.ok())
  {
    std::cerr << program << ": cannot run: " << status.message() << "\n";
    return 1;
  }
  const redu::DeviceInfo& device = gpu.device;
  std::printf("pi_study on %s (sm_%d%d, %d SMs), code_id %s\n", device.name.c_str(), device.cc_major, device.cc_minor,
              device.sm_count, options.code_id.c_str());
  if (const Status status = study(options, gpu); !status.ok())
  {
    std::cerr << program << ": " << status.message() << "\n";
    return 1;
  }
  return 0;
}
