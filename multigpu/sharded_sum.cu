#include "multigpu/sharded_sum.hpp"

#include "common/contract/ops.cuh"
#include "common/device/block_reduce.cuh"

namespace redu::multigpu
{
namespace
{

constexpr int chunk_threads = 256;

// The sum of len floats at x (16-byte aligned) by one block, in an order fixed by len alone: thread t
// adds packs t, t + 256, ... lane by lane, then the < 4 leftover elements, then the lanes, then the
// block's fixed shuffle tree. So a chunk gives the same bits wherever it lies and whichever GPU sums it.
__device__ float ordered_block_sum(const float* x, std::int64_t len)
{
  const std::int64_t packs = len / 4;
  float4 acc{0.f, 0.f, 0.f, 0.f};
  for (std::int64_t i = threadIdx.x; i < packs; i += chunk_threads)
  {
    const float4 v = __ldg(reinterpret_cast<const float4*>(x) + i);
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
  }
  const std::int64_t tail = packs * 4 + threadIdx.x;
  if (tail < len)
  {
    acc.x += x[tail];
  }
  const float value = (acc.x + acc.y) + (acc.z + acc.w);
  return block_reduce<chunk_threads>(value, SumOp{});
}

// Block c sums local chunk c into slots[c]; blocks past the rank's last chunk write 0 (padding).
__global__ void __launch_bounds__(chunk_threads)
    chunk_sums(const float* __restrict__ local, std::int64_t local_n, std::int64_t chunk, float* __restrict__ slots)
{
  const std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * chunk;
  const std::int64_t len   = begin < local_n ? (local_n - begin < chunk ? local_n - begin : chunk) : 0;
  const float sum          = ordered_block_sum(local + (begin < local_n ? begin : 0), len);
  if (threadIdx.x == 0)
  {
    slots[blockIdx.x] = sum;
  }
}

// One block: the chunk partials in chunk order, by the same fixed tree.
__global__ void __launch_bounds__(chunk_threads)
    ordered_sum(const float* __restrict__ partials, std::int64_t count, float* __restrict__ result)
{
  const float sum = ordered_block_sum(partials, count);
  if (threadIdx.x == 0)
  {
    *result = sum;
  }
}

} // namespace

Status ShardedSum::prepare(const std::string& impl, const float* local, std::int64_t max_local_n)
{
  impl_ = find(impl);
  if (impl_ == nullptr)
  {
    return Status::invalid("no registered reduction named " + impl);
  }
  REDU_TRY(partial_.allocate(sizeof(float)));
  const Problem sizing{Kind::full, DType::f32, Op::sum, max_local_n, 1, local, partial_.data()};
  return allocate_workspace(*impl_, sizing, workspace_buffer_, workspace_);
}

Status ShardedSum::run(Communicator* comm, cudaStream_t stream, const float* local, std::int64_t local_n, float* result)
{
  if (comm == nullptr)
  {
    const Problem whole{Kind::full, DType::f32, Op::sum, local_n, 1, local, result};
    return redu::run(*impl_, whole, workspace_, stream);
  }
  const Problem part{Kind::full, DType::f32, Op::sum, local_n, 1, local, partial_.data()};
  REDU_TRY(redu::run(*impl_, part, workspace_, comm->stream()));
  REDU_NCCL_TRY(ncclAllReduce(partial_.data(), result, 1, ncclFloat, ncclSum, comm->comm(), comm->stream()));
  return Status::success();
}

Status ReproducibleSum::prepare(const ChunkPlan& plan)
{
  if (plan.chunk <= 0 || plan.chunk % 4 != 0)
  {
    return Status::invalid("reproducible sum: the chunk (" + std::to_string(plan.chunk)
                           + " elements) must be a positive multiple of 4");
  }
  plan_ = plan;
  REDU_TRY(slots_.allocate(sizeof(float) * static_cast<std::size_t>(std::max<std::int64_t>(plan.per_rank, 1))));
  return gathered_.allocate(sizeof(float) * static_cast<std::size_t>(std::max<std::int64_t>(plan.per_rank * plan.world, 1)));
}

Status ReproducibleSum::run(Communicator* comm, cudaStream_t stream, const float* local, float* result)
{
  if (reinterpret_cast<std::uintptr_t>(local) % 16 != 0)
  {
    return Status::invalid("reproducible sum: the local part must be 16-byte aligned");
  }
  if ((comm != nullptr ? comm->world() : 1) != plan_.world)
  {
    return Status::invalid("reproducible sum: planned for " + std::to_string(plan_.world) + " GPUs");
  }
  const int rank         = comm != nullptr ? comm->rank() : 0;
  const cudaStream_t s   = comm != nullptr ? comm->stream() : stream;
  const Range elements   = plan_.elements_of(rank);
  const bool gather      = comm != nullptr && plan_.world > 1;
  float* const partials  = gather ? slots_.as<float>() : gathered_.as<float>();
  if (plan_.per_rank > 0)
  {
    chunk_sums<<<static_cast<unsigned>(plan_.per_rank), chunk_threads, 0, s>>>(local, elements.size(), plan_.chunk,
                                                                              partials);
    REDU_CUDA_TRY(cudaPeekAtLastError());
    if (gather)
    {
      REDU_NCCL_TRY(ncclAllGather(slots_.data(), gathered_.data(), static_cast<std::size_t>(plan_.per_rank), ncclFloat,
                                  comm->comm(), s));
    }
  }
  ordered_sum<<<1, chunk_threads, 0, s>>>(gathered_.as<float>(), plan_.chunks, result);
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

} // namespace redu::multigpu
