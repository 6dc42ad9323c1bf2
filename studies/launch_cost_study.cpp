// launch_cost_study: where a small reduction's host-clock time goes. The benchmark's two clocks
// (report/event_timer.hpp) differ by what the host does between the start event and the kernel
// reaching the GPU; at n <= 2^20 that is about half of the host-clock time, and it can decide whether a
// kernel faster on the GPU clock (modern.atomic) wins on the host clock too (handwritten/modern/DESIGN.md).
// This study splits that difference in two:
//
//   enqueue:   the host's own time for one call (Call::run: the implementation's host code, the
//              driver's launch call), measured with std::chrono around a batch of calls that wait
//              behind a held stream (StreamBlocker), so the GPU cannot slow the host down;
//   remainder: host clock - GPU clock - enqueue. It was meant as what the GPU adds when a launch
//              reaches it idle, but on both measured GPUs it came out negative for every row but
//              cub.device_reduce_env's (whose host clock is many times its GPU time): the host clock
//              starts when the GPU reaches the start event, after the host began the call, and the
//              launch call's host work after the submission is in the enqueue time but not in the host
//              clock. So read enqueue against launch.empty's (the host path's cost), and host - GPU
//              clock as the host clock's whole extra; the remainder says only how much of the enqueue
//              the host clock hides.
//
// A reference row, launch.empty, times the benchmark's empty launch (FloorKernels::empty in bench/floor.hpp,
// reduce_bench's floor.empty_launch row): one warp that does nothing, launched with <<<>>> and no host code
// around it, so an implementation's enqueue above it is its host path's cost.
//
// Every time is a median; each row's three clocks come from the same process, hot L2 (no flush: the
// question is the host, and a flush would add its own wait). `launch_cost_study --help` lists the
// options. Exit status: 0 success, 1 no GPU or a CUDA failure, 2 bad command line.
#include "bench/floor.hpp"
#include "common/contract/reduction.hpp"
#include "common/host/device_buffer.hpp"
#include "common/host/problem_buffers.hpp"
#include "report/command_line.hpp"
#include "report/event_timer.hpp"
#include "report/json_writer.hpp"
#include "report/measured_gpu.hpp"
#include "report/provenance.hpp"
#include "report/stream_blocker.hpp"
#include "report/study_program.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace
{

using redu::Status;
namespace report = redu::report;

constexpr const char* program = "launch_cost_study";
// The sizes where the host clock decides: one tile per block up to 2^20.
constexpr int sizes_log2[]          = {16, 20};
constexpr redu::DType dtypes[]      = {redu::DType::f32, redu::DType::i32};
constexpr const char* reference_row = "launch.empty";

struct Options
{
  std::string out;
  std::string code_id = "unknown";
  std::vector<std::string> impls; // empty: every full sum that can wait behind a held stream
  int batches   = 31;
  int per_batch = 32;
  int samples   = 101;
};

report::CommandLine command_line(Options& o)
{
  report::CommandLine command_line(program);
  command_line
    .required_option("--out", "FILE.json", "write the results and their context here", report::text(o.out))
    .option("--code_id", "ID", "provenance id of the code (scripts/code_id.sh), recorded in the context",
            report::text(o.code_id))
    .option("--impl", "A,B,...", "implementations to time (default: every full sum that can be captured)",
            report::name_list(o.impls))
    .option("--batches", "B", "enqueue batches per row, the median is reported (default 31)",
            report::integer_in(3, 1001, o.batches))
    .option("--per_batch", "C", "calls per enqueue batch, held behind the stream blocker (default 32)",
            report::integer_in(1, 256, o.per_batch))
    .option("--samples", "S", "event-timed calls per clock (default 101)", report::integer_in(3, 10001, o.samples));
  return command_line;
}

struct Row
{
  std::string impl;
  std::string dtype;
  std::int64_t n       = 0;
  double enqueue_us    = 0;
  double host_clock_us = 0;
  double gpu_clock_us  = 0;
};

// The host's time for one call: `batches` batches of `per_batch` calls, each batch enqueued while the
// stream is held, timed on the host's steady clock; the median batch over per_batch. The held stream
// keeps the GPU from draining the queue during the batch, so the host never waits for it (a launch
// queue that fills up would make the host wait; 256 calls per batch stays far below its depth).
Status time_enqueue(cudaStream_t stream, report::StreamBlocker& blocker, const Options& options,
                    const std::function<Status()>& call, double& enqueue_us)
{
  // One call first, not held: it loads the call's kernels (CUDA loads a module lazily, at its first
  // launch, and that load waits for the running kernels, so behind the blocker it would wait for the
  // blocker's timeout) and makes the call's one-time host work happen outside the timed batches.
  REDU_TRY(call());
  REDU_CUDA_TRY(cudaStreamSynchronize(stream));
  std::vector<double> per_call_us;
  for (int b = 0; b < options.batches; ++b)
  {
    REDU_TRY(blocker.block(stream));
    const auto start = std::chrono::steady_clock::now();
    Status enqueued  = Status::success();
    for (int i = 0; i < options.per_batch && enqueued.ok(); ++i)
    {
      static_cast<void>(enqueued = call());
    }
    const auto stop = std::chrono::steady_clock::now();
    blocker.release(); // also after a failed call: held work must never be left waiting
    REDU_TRY(enqueued);
    REDU_CUDA_TRY(cudaStreamSynchronize(stream));
    REDU_TRY(blocker.check());
    per_call_us.push_back(std::chrono::duration<double, std::micro>(stop - start).count() / options.per_batch);
  }
  enqueue_us = report::median(per_call_us);
  return Status::success();
}

// One row: the enqueue time and both event clocks of the same call.
Status time_row(cudaStream_t stream, report::StreamBlocker& blocker, report::EventTimer& timer, const Options& options,
                const std::function<Status()>& call, Row& row)
{
  REDU_TRY(time_enqueue(stream, blocker, options, call, row.enqueue_us));
  std::vector<double> samples_ms;
  REDU_TRY(timer.time_calls(stream, 3, options.samples, call, samples_ms, nullptr, report::Clock::host));
  row.host_clock_us = 1e3 * report::median(samples_ms);
  REDU_TRY(timer.time_calls(stream, 3, options.samples, call, samples_ms, nullptr, report::Clock::gpu));
  row.gpu_clock_us = 1e3 * report::median(samples_ms);
  return Status::success();
}

// The implementations to time: those named, or every full sum that can wait behind a held stream
// (Info::graph_capture: one that synchronises with the host would wait for the blocker forever).
Status chosen(const Options& options, std::vector<const redu::Reduction*>& impls)
{
  if (options.impls.empty())
  {
    for (const redu::Reduction* impl : redu::registry())
    {
      const redu::Info& info = impl->info();
      if (info.supports(redu::Kind::full) && info.supports(redu::Op::sum) && info.graph_capture && redu::available_here(*impl).ok)
      {
        impls.push_back(impl);
      }
    }
    return Status::success();
  }
  for (const std::string& name : options.impls)
  {
    const redu::Reduction* impl = redu::find(name);
    if (impl == nullptr)
    {
      return Status::invalid("no implementation called " + name + " (reduce_bench --list lists them)");
    }
    if (!impl->info().graph_capture)
    {
      return Status::invalid(name + " waits on the host, so it cannot be timed behind a held stream");
    }
    impls.push_back(impl);
  }
  return Status::success();
}

// A stream of its own, destroyed on every way out of study().
struct OwnedStream
{
  cudaStream_t stream = nullptr;
  ~OwnedStream()
  {
    if (stream != nullptr)
    {
      cudaStreamDestroy(stream);
    }
  }
};

// One implementation's row for one type and size, with its own output and workspace.
Status impl_row(const redu::Reduction& impl, redu::DType dtype, std::int64_t n, const void* input, cudaStream_t stream,
                report::StreamBlocker& blocker, report::EventTimer& timer, const Options& options, Row& row)
{
  redu::ProblemBuffers buffers;
  redu::Call call;
  REDU_TRY(redu::make_problem(&impl, {redu::Kind::full, dtype, redu::Op::sum, n, 1, input}, buffers));
  REDU_TRY(redu::prepare(impl, buffers.problem, buffers.workspace, call));
  row = {impl.info().name, redu::to_string(dtype), n, 0, 0, 0};
  return time_row(stream, blocker, timer, options, [&] { return call.run(stream); }, row);
}

Status study(const Options& options, std::vector<Row>& rows)
{
  std::vector<const redu::Reduction*> impls;
  REDU_TRY(chosen(options, impls));
  OwnedStream owned;
  REDU_CUDA_TRY(cudaStreamCreateWithFlags(&owned.stream, cudaStreamNonBlocking));
  const cudaStream_t stream = owned.stream;
  report::StreamBlocker blocker;
  REDU_TRY(blocker.init());
  report::EventTimer timer;
  REDU_TRY(timer.init());

  // The reference: the empty launch and nothing else (it needs none of FloorKernels' search state).
  const redu::bench::FloorKernels floor_kernels;
  Row reference{reference_row, "none", 0, 0, 0, 0};
  REDU_TRY(time_row(stream, blocker, timer, options, [&] { return floor_kernels.empty(stream); }, reference));
  rows.push_back(reference);

  // The input: zeros (the values do not change a sum's time), as large as the largest size and type.
  redu::DeviceBuffer input;
  const std::int64_t largest = std::int64_t{1} << sizes_log2[std::size(sizes_log2) - 1];
  REDU_TRY(input.allocate(static_cast<std::size_t>(largest) * sizeof(double)));
  REDU_CUDA_TRY(cudaMemset(input.data(), 0, input.bytes()));
  for (const redu::Reduction* impl : impls)
  {
    for (const redu::DType dtype : dtypes)
    {
      for (const int log2 : sizes_log2)
      {
        const std::int64_t n = std::int64_t{1} << log2;
        if (!impl->info().supports(dtype) || n > impl->info().max_n)
        {
          continue;
        }
        Row row;
        if (const Status s = impl_row(*impl, dtype, n, input.data(), stream, blocker, timer, options, row); !s.ok())
        {
          return Status::invalid(impl->info().name + " " + redu::to_string(dtype) + " n = " + std::to_string(n) + ": "
                                 + s.message());
        }
        rows.push_back(row);
      }
    }
    std::cout << impl->info().name << " done\n";
  }
  return Status::success();
}

void write_json(std::ostream& os, const std::vector<report::ContextEntry>& provenance, const Options& options,
                const std::vector<Row>& rows)
{
  report::JsonWriter json(os);
  json.begin_object().key("context").begin_object().text_members(provenance);
  json.key("clocks").string("enqueue_us: host steady clock around calls enqueued behind a held stream, per call; "
                            "host_clock_us and gpu_clock_us: CUDA events as in reduce_bench (hot L2); "
                            "remainder_us = host_clock_us - gpu_clock_us - enqueue_us (negative: the part of the "
                            "enqueue the host clock does not see)");
  json.key("reference").string(std::string(reference_row) + ": reduce_bench's empty launch (one warp, no work)");
  json.key("batches").integer(options.batches).key("per_batch").integer(options.per_batch);
  json.key("samples").integer(options.samples);
  json.end_object();
  json.key("results").begin_array();
  for (const Row& r : rows)
  {
    json.begin_object(report::Layout::one_line);
    json.key("impl").string(r.impl).key("dtype").string(r.dtype).key("n").integer(r.n);
    json.key("enqueue_us").number(r.enqueue_us).key("host_clock_us").number(r.host_clock_us);
    json.key("gpu_clock_us").number(r.gpu_clock_us);
    json.key("remainder_us").number(r.host_clock_us - r.gpu_clock_us - r.enqueue_us);
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
    for (const Row& r : rows)
    {
      std::cout << r.impl << " " << r.dtype << " n=" << r.n << ": enqueue " << r.enqueue_us << " us, host clock "
                << r.host_clock_us << ", gpu clock " << r.gpu_clock_us << "\n";
    }
    return Status::success();
  };
  return report::run_study(program, options.out, study_and_write);
}
