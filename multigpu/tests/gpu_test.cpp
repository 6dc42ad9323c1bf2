// Correctness of every multi-GPU variant against the host reference. These cases drive the GPUs from
// one process, one thread per GPU (Communicator::init_thread), so they need no launcher; peer buffers are
// then reached by plain pointers. The one-process-per-GPU path (CUDA IPC, the id file) is exercised by
// the ctest entry multigpu_bench.verify_2_ranks, which runs the same checks through the launcher.
// Every world size from 1 to the GPUs present is tested (at least 1 and 2: on a machine with fewer GPUs,
// world 2 skips with "needs 2 GPUs, found N"). REQUIRE_MULTI_GPU=1 turns every such skip into a failure
// (REQUIRE_GPU=1 the one-GPU skips). The counts include sizes that divide neither by 3, 4 or 16 bytes.
#include "multigpu/all_reduce.hpp"
#include "multigpu/communicator.hpp"
#include "multigpu/multicast_off.hpp"
#include "multigpu/reference.hpp"
#include "multigpu/sharded_sum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace
{

using namespace redu::multigpu;
using redu::Status;

int gpu_count()
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess)
  {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

bool env_flag(const char* name)
{
  const char* value = std::getenv(name);
  return value != nullptr && std::string(value) != "" && std::string(value) != "0";
}

#define REDU_REQUIRE_GPUS(needed)                                                                             \
  do                                                                                                          \
  {                                                                                                           \
    const int found_ = gpu_count();                                                                           \
    if (found_ < (needed))                                                                                    \
    {                                                                                                         \
      const std::string why_ = "needs " + std::to_string(needed) + " GPU" + ((needed) > 1 ? "s" : "")       \
                               + ", found " + std::to_string(found_);                                         \
      if (env_flag("REQUIRE_MULTI_GPU") || ((needed) == 1 && env_flag("REQUIRE_GPU")))                        \
      {                                                                                                       \
        FAIL() << "REQUIRE_MULTI_GPU/REQUIRE_GPU is set but the test " << why_;                              \
      }                                                                                                       \
      GTEST_SKIP() << "multi-GPU test skipped: " << why_ << " (set REQUIRE_MULTI_GPU=1 to fail instead)";     \
    }                                                                                                         \
  } while (0)

// Runs body on `world` threads, thread r driving GPU r as rank r; the statuses in rank order.
std::vector<Status> run_ranks(int world, const std::function<Status(Communicator&)>& body)
{
  std::vector<Status> results(static_cast<std::size_t>(world), Status::success());
  if (const Status s = keep_multicast_off(); !s.ok())
  {
    results[0] = s;
    return results;
  }
  ncclUniqueId id{};
  if (ncclGetUniqueId(&id) != ncclSuccess)
  {
    results[0] = Status::invalid("ncclGetUniqueId failed");
    return results;
  }
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r)
  {
    threads.emplace_back([&, r] {
      Communicator comm;
      Status s = comm.init_thread(r, world, r, id);
      if (s.ok())
      {
        s = body(comm);
      }
      results[static_cast<std::size_t>(r)] = s;
    });
  }
  for (std::thread& t : threads)
  {
    t.join();
  }
  return results;
}

void expect_all_ok(const std::vector<Status>& results)
{
  for (std::size_t r = 0; r < results.size(); ++r)
  {
    EXPECT_TRUE(results[r].ok()) << "rank " << r << ": " << results[r].message();
  }
}

// Awkward sizes: below one pack, not a multiple of 16 bytes, not a multiple of G, several blocks.
const std::vector<std::int64_t> all_reduce_counts = {1, 2, 3, 4, 5, 7, 8, 9, 15, 17, 1023, 4099, 65539, (1 << 20) + 5,
                                                     3 * (1 << 20) + 1};

// Compares one rank's output with the reference; exact for the hand-written variants, a few roundings
// for NCCL (which adds in its own order).
Status check_output(AllReduceVariant variant, Elem elem, int world, std::int64_t count, std::uint32_t seed,
                    const void* device_output, cudaStream_t stream)
{
  const std::size_t bytes = static_cast<std::size_t>(count) * size_of(elem);
  std::vector<unsigned char> got(bytes);
  REDU_CUDA_TRY(cudaMemcpyAsync(got.data(), device_output, bytes, cudaMemcpyDeviceToHost, stream));
  REDU_CUDA_TRY(cudaStreamSynchronize(stream));
  const bool exact = variant != AllReduceVariant::nccl;
  for (std::int64_t i = 0; i < count; ++i)
  {
    float expected = 0, actual = 0;
    double tolerance = 0;
    if (elem == Elem::f32)
    {
      static thread_local std::vector<float> reference;
      if (i == 0)
      {
        reference = all_reduce_reference_f32(world, count, seed);
      }
      expected = reference[static_cast<std::size_t>(i)];
      std::memcpy(&actual, got.data() + 4 * i, 4);
      tolerance = world * 1.2e-7 * world;
    }
    else
    {
      static thread_local std::vector<std::uint16_t> reference;
      if (i == 0)
      {
        reference = all_reduce_reference_bf16(world, count, seed);
      }
      expected = bf16_to_float(reference[static_cast<std::size_t>(i)]);
      std::uint16_t bits;
      std::memcpy(&bits, got.data() + 2 * i, 2);
      actual    = bf16_to_float(bits);
      tolerance = world * 8e-3 * world;
    }
    const bool ok = exact ? float_bits(actual) == float_bits(expected) : std::fabs(actual - expected) <= tolerance;
    if (!ok)
    {
      return Status::invalid(std::string(to_string(variant)) + " " + to_string(elem) + " count " + std::to_string(count)
                             + ": element " + std::to_string(i) + " is " + std::to_string(actual) + ", expected "
                             + std::to_string(expected) + (exact ? " (bit-exact)" : ""));
    }
  }
  return Status::success();
}

class AllReduceOnGpus : public testing::TestWithParam<int>
{};

TEST_P(AllReduceOnGpus, EveryVariantMatchesTheHostReference)
{
  const int world = GetParam();
  REDU_REQUIRE_GPUS(world);
  const std::int64_t largest = all_reduce_counts.back();
  expect_all_ok(run_ranks(world, [&](Communicator& comm) -> Status {
    AllReduceBuffers buffers;
    REDU_TRY(buffers.allocate(comm, static_cast<std::size_t>(largest) * 4));
    redu::DeviceBuffer output;
    REDU_TRY(output.allocate(static_cast<std::size_t>(largest) * 4));
    for (const Elem elem : all_elems)
    {
      for (const std::int64_t count : all_reduce_counts)
      {
        for (const AllReduceVariant variant : all_variants)
        {
          if (!takes(variant, static_cast<std::size_t>(count) * size_of(elem)))
          {
            continue; // one_shot_push above push_max_bytes: its refusal is a test of its own
          }
          // Two rounds with different inputs: the second finds the flags and the buffers of the first.
          for (std::uint32_t round = 0; round < 2; ++round)
          {
            const std::uint32_t seed = 100 * (round + 1);
            REDU_TRY(fill_signed_pattern(elem, buffers.input(), count, seed + comm.rank(), comm.stream()));
            REDU_CUDA_TRY(cudaMemsetAsync(output.data(), 0xFF, static_cast<std::size_t>(count) * size_of(elem), comm.stream()));
            REDU_TRY(all_reduce(variant, comm, buffers, elem, count, output.data()));
            REDU_TRY(buffers.check_timeouts(comm));
            REDU_TRY(check_output(variant, elem, world, count, seed, output.data(), comm.stream()));
          }
        }
      }
    }
    return buffers.release(comm);
  }));
}

// The push variant keeps no barrier: calls queued back to back, each with another input, must each find
// their own words (the mailboxes' two parities), and the input may change as soon as a call is queued.
TEST_P(AllReduceOnGpus, PushCallsBackToBackEachGetTheirOwnSum)
{
  const int world = GetParam();
  REDU_REQUIRE_GPUS(world);
  constexpr std::int64_t count = 4099; // several blocks' words, and not a multiple of 16 bytes
  constexpr int calls          = 16;
  expect_all_ok(run_ranks(world, [&](Communicator& comm) -> Status {
    AllReduceBuffers buffers;
    REDU_TRY(buffers.allocate(comm, static_cast<std::size_t>(count) * 4));
    redu::DeviceBuffer output;
    REDU_TRY(output.allocate(static_cast<std::size_t>(count) * 4 * calls));
    for (const Elem elem : all_elems)
    {
      const std::size_t bytes = static_cast<std::size_t>(count) * size_of(elem);
      for (int i = 0; i < calls; ++i) // no synchronisation in between
      {
        REDU_TRY(fill_signed_pattern(elem, buffers.input(), count, 1000 + 10 * i + comm.rank(), comm.stream()));
        REDU_TRY(one_shot_push_all_reduce(comm, buffers, elem, count, output.as<unsigned char>() + i * bytes));
      }
      REDU_TRY(buffers.check_timeouts(comm));
      for (int i = 0; i < calls; ++i)
      {
        REDU_TRY(check_output(AllReduceVariant::one_shot_push, elem, world, count, 1000 + 10 * i,
                              output.as<unsigned char>() + i * bytes, comm.stream()));
      }
    }
    return buffers.release(comm);
  }));
}

// 1, 2, ..., the GPUs present (at least 1 and 2, so that a machine without two GPUs says what it skips).
std::vector<int> world_sizes()
{
  std::vector<int> worlds;
  for (int world = 1; world <= std::max(2, gpu_count()); ++world)
  {
    worlds.push_back(world);
  }
  return worlds;
}

INSTANTIATE_TEST_SUITE_P(Gpus, AllReduceOnGpus, testing::ValuesIn(world_sizes()), [](const auto& info) {
  return std::to_string(info.param) + "_gpus";
});

// Above push_max_bytes the push variant refuses with a clear error, and launches nothing.
TEST(AllReduceOnOneGpu, PushRefusesMessagesAboveItsLimit)
{
  REDU_REQUIRE_GPUS(1);
  const std::int64_t count = static_cast<std::int64_t>(push_max_bytes / 4) + 1;
  expect_all_ok(run_ranks(1, [&](Communicator& comm) -> Status {
    AllReduceBuffers buffers;
    REDU_TRY(buffers.allocate(comm, static_cast<std::size_t>(count) * 4));
    redu::DeviceBuffer output;
    REDU_TRY(output.allocate(static_cast<std::size_t>(count) * 4));
    REDU_CUDA_TRY(cudaMemset(output.data(), 0x5A, output.bytes()));
    const Status refused = one_shot_push_all_reduce(comm, buffers, Elem::f32, count, output.data());
    if (refused.ok() || refused.message().find("at most") == std::string::npos)
    {
      return Status::invalid("push of " + std::to_string(count * 4) + " bytes was not refused: " + refused.message());
    }
    REDU_CUDA_TRY(cudaStreamSynchronize(comm.stream()));
    std::vector<unsigned char> after(output.bytes());
    REDU_CUDA_TRY(cudaMemcpy(after.data(), output.data(), after.size(), cudaMemcpyDeviceToHost));
    for (const unsigned char b : after)
    {
      if (b != 0x5A)
      {
        return Status::invalid("the refused push wrote to the output");
      }
    }
    return buffers.release(comm);
  }));
}

// Sharded sums of unit_pattern(seed, 0 .. n-1): the plain variant within its error bound, the
// reproducible one's bits per n, returned for comparison across GPU counts.
std::map<std::int64_t, std::uint32_t> sharded_sums(int world, std::int64_t chunk, Status& failure)
{
  const std::vector<std::int64_t> sizes = {0, 1, 5, 4097, 3 * 4096 + 1, 11 * 4096, (1 << 22) + 3};
  constexpr std::uint32_t seed          = 7;
  std::vector<std::map<std::int64_t, std::uint32_t>> bits(static_cast<std::size_t>(world));
  const auto results = run_ranks(world, [&](Communicator& comm) -> Status {
    redu::DeviceBuffer data, result;
    REDU_TRY(data.allocate(sizeof(float) * static_cast<std::size_t>(sizes.back() + 4)));
    REDU_TRY(result.allocate(sizeof(float)));
    for (const std::int64_t n : sizes)
    {
      const long double exact = unit_pattern_sum(n, seed);
      // Plain: the registry's best kernel on an even part, NCCL for the partials.
      const Range part = sharded_part(n, world, comm.rank());
      REDU_TRY(fill_unit_pattern(data.as<float>(), part.size(), part.begin, seed, comm.stream()));
      ShardedSum plain;
      REDU_TRY(plain.prepare("modern.last_block", data.as<float>(), part.size()));
      REDU_TRY(plain.run(&comm, comm.stream(), data.as<float>(), part.size(), result.as<float>()));
      float got = 0;
      REDU_CUDA_TRY(cudaMemcpyAsync(&got, result.data(), sizeof got, cudaMemcpyDeviceToHost, comm.stream()));
      REDU_CUDA_TRY(cudaStreamSynchronize(comm.stream()));
      const double bound = 1e-6 * static_cast<double>(exact) * (2 + std::log2(static_cast<double>(n) + 1)) + 1e-30;
      if (std::fabs(static_cast<double>(got - exact)) > bound)
      {
        return Status::invalid("sharded sum, n " + std::to_string(n) + ": " + std::to_string(got) + " vs exact "
                               + std::to_string(static_cast<double>(exact)));
      }
      // Reproducible: its own chunk-aligned parts.
      const ChunkPlan plan = make_chunk_plan(n, chunk, world);
      const Range mine     = plan.elements_of(comm.rank());
      REDU_TRY(fill_unit_pattern(data.as<float>(), mine.size(), mine.begin, seed, comm.stream()));
      ReproducibleSum reproducible;
      REDU_TRY(reproducible.prepare(plan));
      REDU_TRY(reproducible.run(&comm, comm.stream(), data.as<float>(), result.as<float>()));
      REDU_CUDA_TRY(cudaMemcpyAsync(&got, result.data(), sizeof got, cudaMemcpyDeviceToHost, comm.stream()));
      REDU_CUDA_TRY(cudaStreamSynchronize(comm.stream()));
      if (std::fabs(static_cast<double>(got - exact)) > bound)
      {
        return Status::invalid("reproducible sum, n " + std::to_string(n) + ": " + std::to_string(got) + " vs exact "
                               + std::to_string(static_cast<double>(exact)));
      }
      bits[static_cast<std::size_t>(comm.rank())][n] = float_bits(got);
    }
    return Status::success();
  });
  failure = Status::success();
  for (std::size_t r = 0; r < results.size(); ++r)
  {
    if (!results[r].ok())
    {
      failure = Status::invalid("rank " + std::to_string(r) + ": " + results[r].message());
      return {};
    }
    if (bits[r] != bits[0])
    {
      failure = Status::invalid("the ranks disagree on the reproducible sum's bits");
      return {};
    }
  }
  return bits[0];
}

TEST(ShardedSumOnGpus, OneGpu)
{
  REDU_REQUIRE_GPUS(1);
  Status failure = Status::success();
  sharded_sums(1, 4096, failure);
  EXPECT_TRUE(failure.ok()) << failure.message();
}

// The same bits from 1 GPU and from every larger world up to the GPUs present.
TEST(ShardedSumOnGpus, ReproducibleBitsDoNotDependOnTheGpuCount)
{
  REDU_REQUIRE_GPUS(2);
  for (const std::int64_t chunk : {std::int64_t{4096}, default_chunk})
  {
    Status failure = Status::success();
    const auto one = sharded_sums(1, chunk, failure);
    ASSERT_TRUE(failure.ok()) << failure.message();
    for (int world = 2; world <= gpu_count(); ++world)
    {
      const auto many = sharded_sums(world, chunk, failure);
      ASSERT_TRUE(failure.ok()) << world << " GPUs: " << failure.message();
      for (const auto& [n, bits] : one)
      {
        EXPECT_EQ(many.at(n), bits) << "n " << n << ", chunk " << chunk << ": " << world
                                    << " GPUs gave other bits than 1";
      }
    }
  }
}

} // namespace
