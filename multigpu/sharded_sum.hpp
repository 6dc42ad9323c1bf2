// The full sum of an array too big or too slow for one GPU: n floats split over G GPUs, each sums its
// part, the G partials are combined. Two ways:
//   ShardedSum       each rank's part through the best single-GPU kernel of the registry
//                    (modern.last_block by default: deterministic on one GPU), then ncclAllReduce of one
//                    float. Deterministic for a fixed G, but the bits change with G (other parts, other
//                    trees).
//   ReproducibleSum  the array is cut into chunks of a fixed size whatever G is (partition.hpp,
//                    ChunkPlan); each rank sums its chunks with one block per chunk in a fixed order, the
//                    chunk partials are gathered (ncclAllGather) and summed in chunk order on every rank.
//                    The same bits on 1, 2 or 8 GPUs: what a training job needs to resume on another
//                    GPU count, or a test to compare with one GPU.
// Napkin (2^31 floats = 8 GiB): one H200 reads it at ~4.3 TB/s in ~2.0 ms; two read 4 GiB each in
// ~1.0 ms, plus one tiny NCCL all-reduce (~20 us): a 1.9-2x speedup, bounded by that fixed step.
#pragma once

#include "common/contract/reduction.hpp"
#include "common/contract/status.hpp"
#include "common/host/device_buffer.hpp"
#include "multigpu/communicator.hpp"
#include "multigpu/partition.hpp"

#include <cstdint>
#include <string>

namespace redu::multigpu
{

// The part of an n-element array rank r of G holds for ShardedSum: an even split.
inline Range sharded_part(std::int64_t n, int world, int rank)
{
  return even_split(n, world, rank);
}

class ShardedSum
{
public:
  // `impl`: a registry name supporting full f32 sums; `local`: device memory of max_local_n floats, the
  // largest part this rank will sum (the registry checks the problem it sizes the workspace for as it
  // checks a call, pointers included).
  Status prepare(const std::string& impl, const float* local, std::int64_t max_local_n);
  // Enqueues on comm.stream(): this rank's part (local_n floats at `local`) and the all-reduce into
  // `result` (one float of device memory, the same value on every rank). comm may be null: one GPU, no
  // combine (then `stream` is used).
  Status run(Communicator* comm, cudaStream_t stream, const float* local, std::int64_t local_n, float* result);
  const Reduction* impl() const { return impl_; }

private:
  const Reduction* impl_ = nullptr;
  DeviceBuffer workspace_buffer_;
  Workspace workspace_{};
  DeviceBuffer partial_;
};

// chunk: elements per chunk, positive and a multiple of 4.
inline constexpr std::int64_t default_chunk = std::int64_t{1} << 20; // 4 MiB of floats: 2048 chunks at 2^31

class ReproducibleSum
{
public:
  Status prepare(const ChunkPlan& plan);
  // `local`: this rank's elements, plan.elements_of(rank), 16-byte aligned. comm null: one GPU holds all.
  Status run(Communicator* comm, cudaStream_t stream, const float* local, float* result);
  const ChunkPlan& plan() const { return plan_; }

private:
  ChunkPlan plan_;
  DeviceBuffer slots_;    // per_rank chunk partials of this rank (zeros past its last chunk)
  DeviceBuffer gathered_; // world * per_rank: every chunk partial, in chunk order, then padding
};

} // namespace redu::multigpu
