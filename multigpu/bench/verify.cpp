// multigpu_bench --verify: the correctness checks of tests/gpu_test.cpp, but one process per GPU, so the
// peer buffers go through CUDA IPC and the ranks meet through the id file, as in the benchmark.
#include "bench.hpp"

#include "multigpu/all_reduce.hpp"
#include "multigpu/reference.hpp"
#include "multigpu/sharded_sum.hpp"

#include <cmath>
#include <cstring>
#include <iostream>
#include <vector>

namespace redu::multigpu
{
namespace
{

Status compare(AllReduceVariant variant, Elem elem, int world, std::int64_t count, std::uint32_t seed,
               const std::vector<unsigned char>& got)
{
  const bool exact = variant != AllReduceVariant::nccl;
  std::vector<float> expected(static_cast<std::size_t>(count));
  std::vector<float> actual(static_cast<std::size_t>(count));
  if (elem == Elem::f32)
  {
    expected = all_reduce_reference_f32(world, count, seed);
    std::memcpy(actual.data(), got.data(), got.size());
  }
  else
  {
    const auto bits = all_reduce_reference_bf16(world, count, seed);
    for (std::int64_t i = 0; i < count; ++i)
    {
      std::uint16_t b;
      std::memcpy(&b, got.data() + 2 * i, 2);
      actual[static_cast<std::size_t>(i)]   = bf16_to_float(b);
      expected[static_cast<std::size_t>(i)] = bf16_to_float(bits[static_cast<std::size_t>(i)]);
    }
  }
  const double tolerance = (elem == Elem::f32 ? 1.2e-7 : 8e-3) * world * world;
  for (std::int64_t i = 0; i < count; ++i)
  {
    const float e = expected[static_cast<std::size_t>(i)], a = actual[static_cast<std::size_t>(i)];
    if (exact ? float_bits(a) != float_bits(e) : std::fabs(a - e) > tolerance)
    {
      return Status::invalid(std::string(to_string(variant)) + " " + to_string(elem) + " count " + std::to_string(count)
                             + ": element " + std::to_string(i) + " is " + std::to_string(a) + ", expected "
                             + std::to_string(e));
    }
  }
  return Status::success();
}

} // namespace

Status check_all_reduce_output(AllReduceVariant variant, Elem elem, int world, std::int64_t count,
                               std::uint32_t seed_base, const std::vector<unsigned char>& got)
{
  return compare(variant, elem, world, count, seed_base, got);
}

Status verify_all(Communicator& comm, int& checks)
{
  checks                                   = 0;
  const std::vector<std::int64_t> counts   = {1, 3, 4, 5, 8, 9, 17, 1023, 4099, 65539, (1 << 20) + 5, 3 * (1 << 20) + 1};
  const std::int64_t largest               = counts.back();
  AllReduceBuffers buffers;
  REDU_TRY(buffers.allocate(comm, static_cast<std::size_t>(largest) * 4));
  DeviceBuffer output;
  REDU_TRY(output.allocate(static_cast<std::size_t>(largest) * 4));
  for (const Elem elem : all_elems)
  {
    for (const std::int64_t count : counts)
    {
      for (const AllReduceVariant variant : all_variants)
      {
        const std::size_t bytes = static_cast<std::size_t>(count) * size_of(elem);
        if (!takes(variant, bytes))
        {
          continue; // one_shot_push above push_max_bytes
        }
        for (std::uint32_t round = 0; round < 2; ++round)
        {
          const std::uint32_t seed = 100 * (round + 1);
          REDU_TRY(fill_signed_pattern(elem, buffers.input(), count, seed + comm.rank(), comm.stream()));
          REDU_CUDA_TRY(cudaMemsetAsync(output.data(), 0xFF, bytes, comm.stream()));
          REDU_TRY(all_reduce(variant, comm, buffers, elem, count, output.data()));
          REDU_TRY(buffers.check_timeouts(comm));
          std::vector<unsigned char> got(bytes);
          REDU_CUDA_TRY(cudaMemcpy(got.data(), output.data(), bytes, cudaMemcpyDeviceToHost));
          REDU_TRY(compare(variant, elem, comm.world(), count, seed, got));
          ++checks;
        }
      }
    }
  }
  REDU_TRY(buffers.release(comm));

  // The reproducible sharded sum: the same bits as one GPU summing the whole array the same way.
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{4097}, std::int64_t{(1 << 22) + 3}})
  {
    constexpr std::uint32_t seed = 7;
    constexpr std::int64_t chunk = 4096;
    const ChunkPlan plan         = make_chunk_plan(n, chunk, comm.world());
    const Range mine             = plan.elements_of(comm.rank());
    DeviceBuffer data, whole, result;
    REDU_TRY(data.allocate(sizeof(float) * static_cast<std::size_t>(std::max<std::int64_t>(mine.size(), 1))));
    REDU_TRY(whole.allocate(sizeof(float) * static_cast<std::size_t>(n)));
    REDU_TRY(result.allocate(2 * sizeof(float)));
    REDU_TRY(fill_unit_pattern(data.as<float>(), mine.size(), mine.begin, seed, comm.stream()));
    REDU_TRY(fill_unit_pattern(whole.as<float>(), n, 0, seed, comm.stream()));
    ReproducibleSum sharded, alone;
    REDU_TRY(sharded.prepare(plan));
    REDU_TRY(alone.prepare(make_chunk_plan(n, chunk, 1)));
    REDU_TRY(sharded.run(&comm, comm.stream(), data.as<float>(), result.as<float>()));
    REDU_TRY(alone.run(nullptr, comm.stream(), whole.as<float>(), result.as<float>() + 1));
    float got[2];
    REDU_CUDA_TRY(cudaMemcpyAsync(got, result.data(), sizeof got, cudaMemcpyDeviceToHost, comm.stream()));
    REDU_CUDA_TRY(cudaStreamSynchronize(comm.stream()));
    if (float_bits(got[0]) != float_bits(got[1]))
    {
      return Status::invalid("reproducible sum, n " + std::to_string(n) + ": " + std::to_string(comm.world())
                             + " GPUs gave " + std::to_string(got[0]) + ", one GPU " + std::to_string(got[1]));
    }
    ++checks;
  }
  return Status::success();
}

} // namespace redu::multigpu
