// multigpu_bench: reductions across the GPUs of one job, one process per GPU (start it with
// scripts/multigpu_launch.sh N, torchrun, mpirun or srun; multigpu/README.md). Rank 0 writes the results
// file, with the provenance keys of every results file (report/provenance.hpp) and these sections:
//   p2p          the yardstick: peer-to-peer copy bandwidth, by the copy engine and by SM loads
//   all_reduce   NCCL, one-shot and two-shot, f32 and bf16, 8 B .. 256 MB: latency, algbw, busbw
//   sharded_sum  the full sum of 2^31 floats over G GPUs (plain and reproducible) and on one GPU
// Every timing on both clocks (report/event_timer.hpp); every all-reduce result checked against the host
// reference. --verify runs only the correctness checks (ctest's multigpu_bench.verify_2_ranks).
// Exit status: 0 success; 1 a failure (a wrong result included); 2 bad command line or environment
// (multicast not off); 77 fewer GPUs than ranks (REQUIRE_MULTI_GPU=1: 1 instead).
#include "bench.hpp"

#include "common/host/device_buffer.hpp"
#include "multigpu/all_reduce.hpp"
#include "multigpu/bandwidth.hpp"
#include "multigpu/communicator.hpp"
#include "multigpu/multicast_off.hpp"
#include "multigpu/peer_buffer.hpp"
#include "multigpu/rank_env.hpp"
#include "multigpu/reference.hpp"
#include "multigpu/sharded_sum.hpp"
#include "report/command_line.hpp"
#include "report/json_writer.hpp"
#include "report/measured_gpu.hpp"
#include "report/provenance.hpp"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#ifndef REDU_NCCL_ORIGIN
#define REDU_NCCL_ORIGIN "unknown"
#endif

namespace
{

using namespace redu::multigpu;
using redu::Status;
namespace report = redu::report;

constexpr const char* program = "multigpu_bench";
constexpr report::Clock clocks[] = {report::Clock::host, report::Clock::gpu};

struct Options
{
  std::string out;
  std::string code_id = "unknown";
  std::string id_file;
  std::vector<Elem> types = {Elem::f32, Elem::bf16};
  std::vector<std::string> parts = {"p2p", "all_reduce", "sharded_sum"};
  int min_log2     = 3;  // 8 B
  int max_log2     = 28; // 256 MB
  int p2p_log2     = 28;
  int sharded_log2 = 31;
  int chunk_log2   = 20;
  std::string sharded_impl = "modern.last_block";
  Timing timing;
  bool verify = false;
};

report::CommandLine command_line(Options& o)
{
  report::CommandLine c(program);
  c.option("--out", "FILE.json", "write the results here (rank 0); required unless --verify", report::text(o.out))
    .option("--code_id", "ID", "provenance id of the code (scripts/code_id.sh), recorded in the context",
            report::text(o.code_id))
    .option("--nccl_id_file", "PATH", "where rank 0 leaves NCCL's id for the others (default: $REDU_NCCL_ID_FILE; "
            "NCCL_COMM_ID=<host:port> needs none)", report::text(o.id_file))
    .option("--types", "LIST", "all-reduce element types (default f32,bf16)",
            report::list_of<Elem>({{"f32", Elem::f32}, {"bf16", Elem::bf16}}, o.types))
    .option("--parts", "LIST", "what to run: p2p, all_reduce, sharded_sum (default all)", report::name_list(o.parts))
    .option("--min_log2", "K", "smallest all-reduce message, 2^K bytes (default 3: 8 B)", report::integer_in(2, 30, o.min_log2))
    .option("--max_log2", "K", "largest all-reduce message, 2^K bytes (default 28: 256 MB)",
            report::integer_in(2, 32, o.max_log2))
    .option("--p2p_log2", "K", "peer copy size, 2^K bytes (default 28)", report::integer_in(10, 32, o.p2p_log2))
    .option("--sharded_log2", "K", "sharded sum of 2^K floats (default 31)", report::integer_in(10, 33, o.sharded_log2))
    .option("--chunk_log2", "K", "reproducible sum's chunk, 2^K floats (default 20)", report::integer_in(2, 30, o.chunk_log2))
    .option("--sharded_impl", "NAME", "registered single-GPU kernel of the sharded sum (default modern.last_block)",
            report::text(o.sharded_impl))
    .option("--samples", "S", "timed samples per row (default 10)", report::integer_in(3, 1000, o.timing.samples))
    .option("--warmups", "W", "untimed batches first (default 3)", report::integer_in(1, 100, o.timing.warmups))
    .flag("--verify", "only check every variant against the host reference (no timing, no file)", o.verify);
  return c;
}

bool wants(const Options& o, const std::string& part)
{
  for (const std::string& p : o.parts)
  {
    if (p == part)
    {
      return true;
    }
  }
  return false;
}

// Back-to-back calls per sample: enough that one sample spans well over the ranks' skew and the events'
// resolution, few enough that the large sizes stay quick.
int calls_for(std::size_t bytes)
{
  return bytes <= (std::size_t{1} << 20) ? 20 : bytes <= (std::size_t{32} << 20) ? 5 : 2;
}

struct Row
{
  std::string kind, variant, dtype, clock;
  int gpus               = 0;
  std::int64_t bytes     = 0;
  std::int64_t elements  = 0;
  int calls              = 0;
  double us              = 0;
  double algbw_gbps      = 0; // all_reduce: message / time
  double busbw_gbps      = 0; // all_reduce: algbw * 2(G-1)/G
  double gbps            = 0; // p2p: per direction; sharded_sum: bytes read / time
  std::string verified;       // "yes", "no", or "" when not applicable
  std::int64_t result_bits = -1;
};

Row make_row(const std::string& kind, const std::string& variant, const std::string& dtype, report::Clock clock, int gpus,
             std::int64_t bytes, std::int64_t elements)
{
  Row row;
  row.kind     = kind;
  row.variant  = variant;
  row.dtype    = dtype;
  row.clock    = report::to_string(clock);
  row.gpus     = gpus;
  row.bytes    = bytes;
  row.elements = elements;
  return row;
}

struct Bench
{
  Bench(Communicator& c, const Options& o)
    : comm(c)
    , options(o)
  {}

  Communicator& comm;
  const Options& options;
  report::EventTimer timer;
  std::vector<Row> rows;
  int wrong = 0;

  void say(const std::string& line) const
  {
    if (comm.rank() == 0)
    {
      std::cout << line << std::endl;
    }
  }

  Status p2p()
  {
    const std::size_t bytes = std::size_t{1} << options.p2p_log2;
    PeerBuffer target;
    REDU_TRY(target.allocate(comm, bytes));
    redu::DeviceBuffer source;
    REDU_TRY(source.allocate(bytes));
    REDU_CUDA_TRY(cudaMemset(source.data(), 1, bytes));
    const int next = (comm.rank() + 1) % comm.world();
    struct Pattern
    {
      const char* name;
      std::function<Status()> call;
    };
    const std::vector<Pattern> patterns = {
      {"copy_engine_one_direction",
       [&]() -> Status {
         if (comm.rank() == 0)
         {
           REDU_CUDA_TRY(cudaMemcpyAsync(target.peer(1), source.data(), bytes, cudaMemcpyDefault, comm.stream()));
         }
         return Status::success();
       }},
      {"copy_engine_all_directions",
       [&]() -> Status {
         REDU_CUDA_TRY(cudaMemcpyAsync(target.peer(next), source.data(), bytes, cudaMemcpyDefault, comm.stream()));
         return Status::success();
       }},
      // Pull: rank r reads rank r+1's buffer into its own memory, as the one-shot kernel reads.
      {"sm_pull_all_directions",
       [&]() -> Status { return pull_copy(source.data(), target.peer(next), bytes, comm.sm_count(), comm.stream()); }},
    };
    for (const Pattern& pattern : patterns)
    {
      for (const report::Clock clock : clocks)
      {
        Row row = make_row("p2p", pattern.name, "", clock, comm.world(), static_cast<std::int64_t>(bytes), 0);
        row.calls = 2;
        REDU_TRY(time_on_ranks(comm, timer, clock, options.timing, row.calls, pattern.call, row.us));
        row.gbps = static_cast<double>(bytes) / (row.us * 1e-6) / 1e9;
        rows.push_back(row);
        say("p2p " + row.variant + " (" + row.clock + "): " + std::to_string(row.gbps) + " GB/s per direction");
      }
    }
    return target.release(comm);
  }

  Status all_reduce_sweep()
  {
    const std::size_t max_bytes = std::size_t{1} << options.max_log2;
    AllReduceBuffers buffers;
    REDU_TRY(buffers.allocate(comm, max_bytes));
    redu::DeviceBuffer output;
    REDU_TRY(output.allocate(max_bytes));
    constexpr std::uint32_t seed = 100;
    for (const Elem elem : options.types)
    {
      for (int k = options.min_log2; k <= options.max_log2; ++k)
      {
        const std::size_t bytes  = std::size_t{1} << k;
        const std::int64_t count = static_cast<std::int64_t>(bytes / size_of(elem));
        REDU_TRY(fill_signed_pattern(elem, buffers.input(), count, seed + comm.rank(), comm.stream()));
        for (const AllReduceVariant variant : all_variants)
        {
          if (!takes(variant, bytes))
          {
            continue; // one_shot_push above push_max_bytes
          }
          std::string verified;
          for (const report::Clock clock : clocks)
          {
            Row row = make_row("all_reduce", to_string(variant), to_string(elem), clock, comm.world(),
                               static_cast<std::int64_t>(bytes), count);
            row.calls = calls_for(bytes);
            REDU_TRY(time_on_ranks(comm, timer, clock, options.timing, row.calls,
                                   [&] { return all_reduce(variant, comm, buffers, elem, count, output.data()); }, row.us));
            REDU_TRY(buffers.check_timeouts(comm));
            row.algbw_gbps = algbw_gbps(static_cast<double>(bytes), row.us * 1e-6);
            row.busbw_gbps = busbw_gbps(static_cast<double>(bytes), row.us * 1e-6, comm.world());
            if (verified.empty())
            {
              std::vector<unsigned char> got(bytes);
              REDU_CUDA_TRY(cudaMemcpy(got.data(), output.data(), bytes, cudaMemcpyDeviceToHost));
              const Status check = check_all_reduce_output(variant, elem, comm.world(), count, seed, got);
              verified           = check.ok() ? "yes" : "no";
              if (!check.ok())
              {
                ++wrong;
                std::cerr << program << ": rank " << comm.rank() << ": WRONG RESULT: " << check.message() << "\n";
              }
            }
            row.verified = verified;
            rows.push_back(row);
          }
          const Row& last = rows.back();
          say("all_reduce " + last.dtype + " " + std::to_string(bytes) + " B " + last.variant + ": "
              + std::to_string(rows[rows.size() - 2].us) + " us (host clock), " + std::to_string(last.us)
              + " us (gpu clock), busbw " + std::to_string(last.busbw_gbps) + " GB/s");
        }
      }
    }
    return buffers.release(comm);
  }

  Status sharded_sum()
  {
    const std::int64_t n     = std::int64_t{1} << options.sharded_log2;
    const std::int64_t chunk = std::int64_t{1} << options.chunk_log2;
    const ChunkPlan plan     = make_chunk_plan(n, chunk, comm.world());
    const Range part         = sharded_part(n, comm.world(), comm.rank());
    const Range chunked      = plan.elements_of(comm.rank());
    constexpr std::uint32_t seed = 7;
    redu::DeviceBuffer data, result;
    REDU_TRY(data.allocate(sizeof(float) * static_cast<std::size_t>(std::max(part.size(), chunked.size()) + 4)));
    REDU_TRY(result.allocate(sizeof(float)));
    const auto read_bits = [&](std::int64_t& bits) -> Status {
      float value = 0;
      REDU_CUDA_TRY(cudaMemcpy(&value, result.data(), sizeof value, cudaMemcpyDeviceToHost));
      bits = float_bits(value);
      return Status::success();
    };
    const auto record = [&](const std::string& variant, int gpus, report::Clock clock, double us, std::int64_t bits) {
      Row row = make_row("sharded_sum", variant, "f32", clock, gpus, n * 4, n);
      row.calls       = 3;
      row.us          = us;
      row.gbps        = static_cast<double>(n) * 4 / (us * 1e-6) / 1e9;
      row.result_bits = bits;
      rows.push_back(row);
      say("sharded_sum " + variant + " on " + std::to_string(gpus) + " GPU(s), 2^" + std::to_string(options.sharded_log2)
          + " floats (" + row.clock + " clock): " + std::to_string(us) + " us");
    };

    ShardedSum plain;
    REDU_TRY(plain.prepare(options.sharded_impl, data.as<float>(), part.size()));
    REDU_TRY(fill_unit_pattern(data.as<float>(), part.size(), part.begin, seed, comm.stream()));
    for (const report::Clock clock : clocks)
    {
      double us = 0;
      std::int64_t bits = 0;
      REDU_TRY(time_on_ranks(comm, timer, clock, options.timing, 3,
                             [&] { return plain.run(&comm, comm.stream(), data.as<float>(), part.size(), result.as<float>()); },
                             us));
      REDU_TRY(read_bits(bits));
      record("sharded." + options.sharded_impl, comm.world(), clock, us, bits);
    }
    ReproducibleSum reproducible;
    REDU_TRY(reproducible.prepare(plan));
    REDU_TRY(fill_unit_pattern(data.as<float>(), chunked.size(), chunked.begin, seed, comm.stream()));
    for (const report::Clock clock : clocks)
    {
      double us = 0;
      std::int64_t bits = 0;
      REDU_TRY(time_on_ranks(comm, timer, clock, options.timing, 3,
                             [&] { return reproducible.run(&comm, comm.stream(), data.as<float>(), result.as<float>()); },
                             us));
      REDU_TRY(read_bits(bits));
      record("sharded_reproducible", comm.world(), clock, us, bits);
    }
    // One GPU holding everything: rank 0 alone, the others wait at the barrier below.
    if (comm.rank() == 0)
    {
      data.reset();
      redu::DeviceBuffer whole;
      REDU_TRY(whole.allocate(sizeof(float) * static_cast<std::size_t>(n)));
      REDU_TRY(fill_unit_pattern(whole.as<float>(), n, 0, seed, comm.stream()));
      ShardedSum alone;
      REDU_TRY(alone.prepare(options.sharded_impl, whole.as<float>(), n));
      ReproducibleSum alone_reproducible;
      REDU_TRY(alone_reproducible.prepare(make_chunk_plan(n, chunk, 1)));
      for (const report::Clock clock : clocks)
      {
        double us = 0;
        std::int64_t bits = 0;
        REDU_TRY(time_alone(comm.stream(), timer, clock, options.timing, 3,
                            [&] { return alone.run(nullptr, comm.stream(), whole.as<float>(), n, result.as<float>()); }, us));
        REDU_TRY(read_bits(bits));
        record("one_gpu." + options.sharded_impl, 1, clock, us, bits);
        REDU_TRY(time_alone(comm.stream(), timer, clock, options.timing, 3,
                            [&] { return alone_reproducible.run(nullptr, comm.stream(), whole.as<float>(), result.as<float>()); },
                            us));
        REDU_TRY(read_bits(bits));
        record("one_gpu_reproducible", 1, clock, us, bits);
      }
    }
    return comm.barrier();
  }
};

void write_json(std::ostream& os, const std::vector<report::ContextEntry>& provenance, const Options& o,
                const RankInfo& info, const std::vector<Row>& rows)
{
  report::JsonWriter json(os);
  json.begin_object().key("context").begin_object().text_members(provenance);
  json.key("world_size").string(std::to_string(info.world));
  json.key("launcher").string(info.source);
  json.key("nccl_version").string(nccl_version_text());
  json.key("nccl_origin").string(REDU_NCCL_ORIGIN);
  json.key("multicast").string("off: NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1, TORCH_SYMM_MEM_DISABLE_MULTICAST=1");
  json.key("timing").string("per call: median over samples of (events around calls_per_sample back-to-back calls) / "
                            "calls_per_sample, the slowest rank's; an NCCL barrier lines the ranks up before each sample");
  json.key("samples").string(std::to_string(o.timing.samples));
  json.key("warmups").string(std::to_string(o.timing.warmups));
  json.key("sharded_impl").string(o.sharded_impl);
  json.key("chunk_elements").string(std::to_string(std::int64_t{1} << o.chunk_log2));
  json.end_object();
  json.key("results").begin_array();
  for (const Row& r : rows)
  {
    json.begin_object(report::Layout::one_line);
    json.key("kind").string(r.kind).key("variant").string(r.variant);
    if (!r.dtype.empty())
    {
      json.key("dtype").string(r.dtype);
    }
    json.key("gpus").integer(r.gpus).key("bytes").integer(r.bytes);
    if (r.elements > 0)
    {
      json.key("elements").integer(r.elements);
    }
    json.key("clock").string(r.clock).key("calls_per_sample").integer(r.calls).key("us").number(r.us);
    if (r.kind == "all_reduce")
    {
      json.key("algbw_gbps").number(r.algbw_gbps).key("busbw_gbps").number(r.busbw_gbps);
      json.key("verified").boolean(r.verified == "yes");
    }
    else
    {
      json.key("gbps").number(r.gbps);
    }
    if (r.result_bits >= 0)
    {
      json.key("result_bits").integer(r.result_bits);
    }
    json.end_object();
  }
  json.end_array().end_object();
}

int fail(const RankInfo& info, const std::string& message, int status = 1)
{
  std::cerr << program << ": rank " << info.rank << ": " << message << "\n";
  return status;
}

bool env_flag(const char* name)
{
  const char* value = std::getenv(name);
  return value != nullptr && std::string(value) != "" && std::string(value) != "0";
}

} // namespace

int main(int argc, char** argv)
{
  // First of all: NCCL reads NCCL_NVLS_ENABLE once, at its first call.
  if (const Status s = keep_multicast_off(); !s.ok())
  {
    std::cerr << program << ": " << s.message() << "\n";
    return 2;
  }
  Options options;
  if (const std::optional<int> exit_status = command_line(options).early_exit(argc, argv))
  {
    return *exit_status;
  }
  RankInfo info;
  if (const Status s = rank_from_environment(process_environment(), info); !s.ok())
  {
    return fail(info, s.message(), 2);
  }
  if (!options.verify && options.out.empty())
  {
    return fail(info, "--out=FILE.json is required (or --verify)", 2);
  }
  for (const std::string& part : options.parts)
  {
    if (part != "p2p" && part != "all_reduce" && part != "sharded_sum")
    {
      return fail(info, "--parts: unknown part " + part + " (p2p, all_reduce, sharded_sum)", 2);
    }
  }
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess)
  {
    gpus = 0;
  }
  // Every rank of a host checks for all of the host's GPUs, not only its own: the ranks then agree on
  // skipping, and none waits inside NCCL for a rank that skipped.
  if (gpus < info.local_world || gpus <= info.local_rank || info.world < 2)
  {
    const std::string why = info.world < 2 ? "needs 2 or more ranks, one per GPU (start it with scripts/multigpu_launch.sh 2 ...)"
                                           : "needs " + std::to_string(info.local_world)
                                                 + " GPUs on this host (one per rank), found " + std::to_string(gpus);
    if (info.world < 2)
    {
      return fail(info, why, 2);
    }
    const bool required = env_flag("REQUIRE_MULTI_GPU");
    return fail(info, (required ? "REQUIRE_MULTI_GPU is set but it " : "skipped: it ") + why, required ? 1 : 77);
  }
  std::string id_file = options.id_file;
  if (id_file.empty() && std::getenv("REDU_NCCL_ID_FILE") != nullptr)
  {
    id_file = std::getenv("REDU_NCCL_ID_FILE");
  }
  Communicator comm;
  if (const Status s = comm.init_process(info, id_file); !s.ok())
  {
    return fail(info, s.message());
  }
  if (options.verify)
  {
    int checks = 0;
    if (const Status s = verify_all(comm, checks); !s.ok())
    {
      return fail(info, "verify: " + s.message());
    }
    std::cout << program << ": rank " << info.rank << " of " << info.world << ": " << checks << " checks passed\n";
    return 0;
  }

  report::MeasuredGpu gpu;
  if (info.rank == 0)
  {
    if (const Status s = report::measure_gpu(comm.stream(), gpu); !s.ok())
    {
      return fail(info, s.message());
    }
  }
  std::ofstream out;
  if (info.rank == 0)
  {
    out.open(options.out);
    if (!out)
    {
      return fail(info, "cannot open " + options.out + " for writing");
    }
  }
  Bench bench{comm, options};
  Status s = bench.timer.init();
  if (s.ok())
  {
    s = comm.barrier();
  }
  bench.say(std::string(program) + ": " + std::to_string(info.world) + " ranks, NCCL " + nccl_version_text());
  if (s.ok() && wants(options, "p2p"))
  {
    s = bench.p2p();
  }
  if (s.ok() && wants(options, "all_reduce"))
  {
    s = bench.all_reduce_sweep();
  }
  if (s.ok() && wants(options, "sharded_sum"))
  {
    s = bench.sharded_sum();
  }
  if (!s.ok())
  {
    return fail(info, s.message());
  }
  if (info.rank == 0)
  {
    write_json(out, report::provenance(program, options.code_id, gpu), options, info, bench.rows);
    out.close();
    if (!out)
    {
      return fail(info, "cannot write " + options.out);
    }
    std::cout << program << ": wrote " << bench.rows.size() << " rows to " << options.out << "\n";
  }
  if (bench.wrong > 0)
  {
    return fail(info, std::to_string(bench.wrong) + " all-reduce results were wrong (see above)");
  }
  return 0;
}
