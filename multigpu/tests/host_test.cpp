// The host-side logic of multigpu/, tested without a GPU: every case here runs in CI.
#include "multigpu/bandwidth.hpp"
#include "multigpu/multicast_off.hpp"
#include "multigpu/partition.hpp"
#include "multigpu/pattern.hpp"
#include "multigpu/rank_env.hpp"
#include "multigpu/reference.hpp"
#include "multigpu/unique_id_file.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <cstdio>
#include <map>
#include <string>
#include <thread>

namespace
{

using namespace redu::multigpu;

struct FakeEnv
{
  std::map<std::string, std::string> vars;
  EnvLookup lookup()
  {
    return [this](const char* name) -> const char* {
      const auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
  EnvSet setter()
  {
    return [this](const char* name, const char* value) {
      vars[name] = value;
      return true;
    };
  }
};

TEST(HostRankEnv, NoLauncherIsOneRank)
{
  FakeEnv env;
  RankInfo info;
  ASSERT_TRUE(rank_from_environment(env.lookup(), info).ok());
  EXPECT_EQ(info.rank, 0);
  EXPECT_EQ(info.world, 1);
  EXPECT_EQ(info.local_rank, 0);
}

TEST(HostRankEnv, TorchrunVariables)
{
  FakeEnv env{{{"RANK", "3"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "2"}}};
  RankInfo info;
  ASSERT_TRUE(rank_from_environment(env.lookup(), info).ok());
  EXPECT_EQ(info.rank, 3);
  EXPECT_EQ(info.world, 8);
  EXPECT_EQ(info.local_rank, 1);
  EXPECT_EQ(info.local_world, 2);
}

TEST(HostRankEnv, OpenMpiAndSlurm)
{
  FakeEnv mpi{{{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}}};
  RankInfo info;
  ASSERT_TRUE(rank_from_environment(mpi.lookup(), info).ok());
  EXPECT_EQ(info.rank, 1);
  EXPECT_EQ(info.local_rank, 1);
  EXPECT_EQ(info.local_world, 2); // no local size: one host

  FakeEnv slurm{{{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "6"}, {"SLURM_LOCALID", "1"}, {"SLURM_NTASKS_PER_NODE", "2(x3)"}}};
  ASSERT_TRUE(rank_from_environment(slurm.lookup(), info).ok());
  EXPECT_EQ(info.rank, 5);
  EXPECT_EQ(info.world, 6);
  EXPECT_EQ(info.local_rank, 1);
}

TEST(HostRankEnv, TorchrunWinsOverSlurm)
{
  FakeEnv env{{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"SLURM_PROCID", "7"}, {"SLURM_NTASKS", "9"}}};
  RankInfo info;
  ASSERT_TRUE(rank_from_environment(env.lookup(), info).ok());
  EXPECT_EQ(info.world, 2);
}

TEST(HostRankEnv, BadValuesAreErrorsNamingTheVariable)
{
  RankInfo info;
  FakeEnv not_a_number{{{"RANK", "x"}, {"WORLD_SIZE", "2"}}};
  const redu::Status s = rank_from_environment(not_a_number.lookup(), info);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("RANK=x"), std::string::npos) << s.message();
  FakeEnv too_big{{{"RANK", "2"}, {"WORLD_SIZE", "2"}}};
  EXPECT_FALSE(rank_from_environment(too_big.lookup(), info).ok());
  FakeEnv zero_world{{{"RANK", "0"}, {"WORLD_SIZE", "0"}}};
  EXPECT_FALSE(rank_from_environment(zero_world.lookup(), info).ok());
  FakeEnv local_too_big{{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "2"}, {"LOCAL_WORLD_SIZE", "2"}}};
  EXPECT_FALSE(rank_from_environment(local_too_big.lookup(), info).ok());
}

TEST(HostMulticastOff, SetsUnsetVariables)
{
  FakeEnv env;
  ASSERT_TRUE(keep_multicast_off(env.lookup(), env.setter()).ok());
  EXPECT_EQ(env.vars["NCCL_NVLS_ENABLE"], "0");
  EXPECT_EQ(env.vars["NVSHMEM_DISABLE_NVLS"], "1");
  EXPECT_EQ(env.vars["TORCH_SYMM_MEM_DISABLE_MULTICAST"], "1");
}

TEST(HostMulticastOff, AcceptsOffRefusesOn)
{
  FakeEnv off{{{"NCCL_NVLS_ENABLE", "0"}, {"NVSHMEM_DISABLE_NVLS", "1"}, {"TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"}}};
  EXPECT_TRUE(keep_multicast_off(off.lookup(), off.setter()).ok());
  for (const char* name : {"NCCL_NVLS_ENABLE", "NVSHMEM_DISABLE_NVLS", "TORCH_SYMM_MEM_DISABLE_MULTICAST"})
  {
    FakeEnv on = off;
    on.vars[name] = std::string(name) == "NCCL_NVLS_ENABLE" ? "1" : "0";
    const redu::Status s = keep_multicast_off(on.lookup(), on.setter());
    ASSERT_FALSE(s.ok()) << name;
    EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
  }
}

TEST(HostMulticastOff, ThisProcess)
{
  // The real environment: afterwards the three variables hold the off values (or the call refused).
  if (keep_multicast_off().ok())
  {
    EXPECT_STREQ(std::getenv("NCCL_NVLS_ENABLE"), "0");
  }
}

std::string temp_path(const char* name)
{
  return std::string(::testing::TempDir()) + "/" + name + "." + std::to_string(::getpid());
}

TEST(HostIdFile, WriteThenRead)
{
  const std::string path = temp_path("nccl_id");
  unsigned char id[128];
  for (int i = 0; i < 128; ++i)
  {
    id[i] = static_cast<unsigned char>(i * 7);
  }
  ASSERT_TRUE(write_id_file(path, id, sizeof id).ok());
  unsigned char back[128] = {};
  ASSERT_TRUE(read_id_file(path, back, sizeof back, 1.0).ok());
  EXPECT_EQ(std::memcmp(id, back, sizeof id), 0);
  std::remove(path.c_str());
}

TEST(HostIdFile, ReaderWaitsForTheWriter)
{
  const std::string path = temp_path("nccl_id_late");
  std::remove(path.c_str());
  unsigned char id[128] = {42};
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_TRUE(write_id_file(path, id, sizeof id).ok());
  });
  unsigned char back[128] = {};
  const redu::Status s = read_id_file(path, back, sizeof back, 10.0);
  writer.join();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(back[0], 42);
  std::remove(path.c_str());
}

TEST(HostIdFile, TimeoutNamesThePath)
{
  const std::string path = temp_path("nccl_id_never");
  unsigned char back[128];
  const redu::Status s = read_id_file(path, back, sizeof back, 0.1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
}

TEST(HostPartition, EvenSplitCoversEverythingOnce)
{
  for (std::int64_t n : {0, 1, 7, 8, 1000003})
  {
    for (int parts = 1; parts <= 8; ++parts)
    {
      std::int64_t next = 0;
      for (int p = 0; p < parts; ++p)
      {
        const Range r = even_split(n, parts, p);
        EXPECT_EQ(r.begin, next);
        EXPECT_LE(r.size(), n / parts + 1);
        EXPECT_GE(r.size(), n / parts);
        next = r.end;
      }
      EXPECT_EQ(next, n);
    }
  }
}

TEST(HostPartition, ChunkPlanDoesNotDependOnTheGpuCount)
{
  const std::int64_t n = 10 * 4096 + 5, chunk = 4096;
  for (int world = 1; world <= 8; ++world)
  {
    const ChunkPlan plan = make_chunk_plan(n, chunk, world);
    EXPECT_EQ(plan.chunks, 11);
    std::int64_t next_chunk = 0, next_element = 0;
    for (int r = 0; r < world; ++r)
    {
      const Range c = plan.chunks_of(r);
      const Range e = plan.elements_of(r);
      EXPECT_EQ(c.begin, next_chunk);
      EXPECT_EQ(e.begin, next_element);
      if (e.size() > 0)
      {
        EXPECT_EQ(e.begin % chunk, 0); // every part starts on a chunk boundary (16-byte aligned)
      }
      EXPECT_LE(c.size(), plan.per_rank);
      next_chunk   = c.end;
      next_element = e.end;
    }
    EXPECT_EQ(next_chunk, plan.chunks);
    EXPECT_EQ(next_element, n);
    // Only the last ranks own fewer than per_rank chunks: the gathered slots are chunks then padding.
    bool short_seen = false;
    for (int r = 0; r < world; ++r)
    {
      const bool is_short = plan.chunks_of(r).size() < plan.per_rank;
      EXPECT_FALSE(short_seen && !is_short) << "world " << world;
      short_seen = short_seen || is_short;
    }
  }
  const ChunkPlan empty = make_chunk_plan(0, 4096, 2);
  EXPECT_EQ(empty.chunks, 0);
  EXPECT_EQ(empty.per_rank, 0);
}

TEST(HostBandwidth, BusBandwidthFormula)
{
  EXPECT_DOUBLE_EQ(all_reduce_bus_factor(1), 0.0);
  EXPECT_DOUBLE_EQ(all_reduce_bus_factor(2), 1.0);
  EXPECT_DOUBLE_EQ(all_reduce_bus_factor(8), 1.75);
  EXPECT_DOUBLE_EQ(algbw_gbps(1e9, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(busbw_gbps(256e6, 1e-3, 2), 256.0);
  EXPECT_DOUBLE_EQ(busbw_gbps(256e6, 1e-3, 8), 448.0);
}

TEST(HostBandwidth, TrafficPerGpu)
{
  const double m = 1 << 20;
  // On 2 GPUs every algorithm moves m per GPU; on 8, one-shot moves 4x two-shot's bytes.
  EXPECT_DOUBLE_EQ(bytes_in_per_gpu(Algorithm::one_shot, m, 2), m);
  EXPECT_DOUBLE_EQ(bytes_in_per_gpu(Algorithm::two_shot, m, 2), m);
  EXPECT_DOUBLE_EQ(bytes_in_per_gpu(Algorithm::ring, m, 2), m);
  EXPECT_DOUBLE_EQ(bytes_in_per_gpu(Algorithm::one_shot, m, 8), 7 * m);
  EXPECT_DOUBLE_EQ(bytes_in_per_gpu(Algorithm::two_shot, m, 8), 1.75 * m);
  // 256 MB on 2 x H200 at 450 GB/s per direction: about 0.6 ms.
  EXPECT_NEAR(predicted_seconds(Algorithm::one_shot, 256e6, 2, 450, 0), 0.569e-3, 0.001e-3);
}

TEST(HostPattern, Bf16RoundingIsNearestEven)
{
  EXPECT_EQ(bf16_round(1.0f), 0x3F80);
  EXPECT_EQ(bf16_to_float(bf16_round(1.0f)), 1.0f);
  // 1 + 2^-8 is halfway between bf16 1 and 1 + 2^-7: ties go to the even one (1).
  EXPECT_EQ(bf16_round(1.0f + 1.0f / 256), 0x3F80);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): up.
  EXPECT_EQ(bf16_round(1.0f + 3.0f / 256), 0x3F82);
  EXPECT_EQ(bf16_round(-2.0f), 0xC000);
  EXPECT_EQ(bf16_round(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_TRUE(std::isnan(bf16_to_float(bf16_round(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(HostPattern, ValuesAreExactAndInRange)
{
  for (std::int64_t i = 0; i < 10000; ++i)
  {
    const float s = signed_pattern(3, i);
    EXPECT_GE(s, -1.0f);
    EXPECT_LT(s, 1.0f);
    EXPECT_EQ(s * 8388608.0f, std::nearbyint(s * 8388608.0f));
    const float u = unit_pattern(3, i);
    EXPECT_GE(u, 0.0f);
    EXPECT_LT(u, 1.0f);
  }
  EXPECT_NE(signed_pattern(1, 5), signed_pattern(2, 5));
}

TEST(HostReference, RankOrderSum)
{
  // Two ranks: the reference is x0 + x1 of the patterns, element by element; bf16 rounds once, at the end.
  const auto f32 = all_reduce_reference_f32(2, 5, 10);
  for (int i = 0; i < 5; ++i)
  {
    EXPECT_EQ(f32[i], signed_pattern(10, i) + signed_pattern(11, i));
  }
  const auto bf16 = all_reduce_reference_bf16(3, 5, 10);
  for (int i = 0; i < 5; ++i)
  {
    float acc = bf16_to_float(bf16_round(signed_pattern(10, i)));
    acc += bf16_to_float(bf16_round(signed_pattern(11, i)));
    acc += bf16_to_float(bf16_round(signed_pattern(12, i)));
    EXPECT_EQ(bf16[i], bf16_round(acc));
  }
}

} // namespace
