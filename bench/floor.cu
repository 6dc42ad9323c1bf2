#include "floor.hpp"

#include "common/contract/requirements.hpp"
#include "common/device/vector_load.cuh"

#include <algorithm>
#include <cstdint>

namespace redu::bench
{
namespace
{

template <FloorLoad kind> struct LoadFor;
template <> struct LoadFor<FloorLoad::read_only>
{
  __device__ ReadOnlyLoad make() const { return {}; }
};
template <> struct LoadFor<FloorLoad::evict_first>
{
  __device__ StreamingLoad make() const { return StreamingLoad(true); }
};
template <> struct LoadFor<FloorLoad::evict_normal>
{
  __device__ StreamingLoad make() const { return StreamingLoad(false); }
};

__device__ __forceinline__ unsigned fold(const Pack<std::int32_t>& pack)
{
  return static_cast<unsigned>(pack.v.x ^ pack.v.y ^ pack.v.z ^ pack.v.w);
}

// Each thread issues `loads` 16-byte loads a grid stride apart before it uses any, XORs them into one
// register, and loops while the grid has not covered the input (a tiles grid covers it in one round).
// The tail of a byte count that is not a multiple of 16 is read byte by byte by block 0.
template <int loads, FloorLoad kind>
__global__ void read_all(const Pack<std::int32_t>* __restrict__ input, std::int64_t packs, int tail_bytes,
                         unsigned* __restrict__ warp_words)
{
  const auto load     = LoadFor<kind>{}.make();
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  std::int64_t i      = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc        = 0;
  for (; i + (loads - 1) * stride < packs; i += loads * stride)
  {
    Pack<std::int32_t> in_flight[loads];
#pragma unroll
    for (int u = 0; u < loads; ++u)
    {
      in_flight[u] = load.vector(input + i + u * stride);
    }
#pragma unroll
    for (int u = 0; u < loads; ++u)
    {
      acc ^= fold(in_flight[u]);
    }
  }
  for (; i < packs; i += stride)
  {
    acc ^= fold(load.vector(input + i));
  }
  if (blockIdx.x == 0 && static_cast<int>(threadIdx.x) < tail_bytes)
  {
    acc ^= reinterpret_cast<const unsigned char*>(input + packs)[threadIdx.x];
  }
  for (int offset = 16; offset > 0; offset /= 2)
  {
    acc ^= __shfl_xor_sync(0xffffffffu, acc, offset);
  }
  if (threadIdx.x % 32 == 0)
  {
    warp_words[(static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32] = acc;
  }
}

__global__ void empty_kernel() {}

using ReadKernel = void (*)(const Pack<std::int32_t>*, std::int64_t, int, unsigned*);

template <FloorLoad kind> ReadKernel kernel_for(int loads)
{
  switch (loads)
  {
  case 1: return read_all<1, kind>;
  case 2: return read_all<2, kind>;
  case 4: return read_all<4, kind>;
  default: return read_all<8, kind>;
  }
}

ReadKernel kernel_for(const FloorShape& shape)
{
  switch (shape.load)
  {
  case FloorLoad::read_only: return kernel_for<FloorLoad::read_only>(shape.loads_per_thread);
  case FloorLoad::evict_first: return kernel_for<FloorLoad::evict_first>(shape.loads_per_thread);
  default: return kernel_for<FloorLoad::evict_normal>(shape.loads_per_thread);
  }
}

const char* to_string(FloorLoad load)
{
  switch (load)
  {
  case FloorLoad::read_only: return "read_only";
  case FloorLoad::evict_first: return "evict_first";
  default: return "evict_normal";
  }
}

} // namespace

std::string FloorShape::name() const
{
  return std::to_string(threads) + "x" + std::to_string(loads_per_thread) + "/" + (resident_grid ? "resident" : "tiles")
       + "/" + to_string(load);
}

Status FloorKernels::init(int sm_count, std::size_t max_bytes)
{
  sm_count_ = sm_count;
  shapes_.clear();
  // The streaming shapes only where their L2 hint exists (the GPU and the code this binary runs on it):
  // without it they are read_only's loads under another name (vector_load.cuh).
  bool hints = false;
  REDU_TRY(feature_in_use(Feature::l2_cache_hints, kernel_of(read_all<1, FloorLoad::evict_first>), hints));
  for (FloorLoad load : {FloorLoad::read_only, FloorLoad::evict_first, FloorLoad::evict_normal})
  {
    if (load != FloorLoad::read_only && !hints)
    {
      continue;
    }
    for (int threads : {128, 256, 512, 1024})
    {
      for (int loads : {1, 2, 4, 8})
      {
        for (bool resident : {false, true})
        {
          shapes_.push_back({threads, loads, resident, load});
        }
      }
    }
  }
  // The most warps: a tiles grid of the smallest block rounds (128 threads x 1 load), one warp per 32
  // packs, plus a block's worth for rounding up; a resident grid has far fewer (64 warps per SM is the
  // most any architecture holds: 2048 threads on sm_80, 90 and 100, 1536 on sm_86, 89 and 120, 1024 on sm_75).
  const std::size_t most_warps = max_bytes / 16 / 32 + 1024 / 32;
  REDU_TRY(warp_words_.allocate(std::max<std::size_t>(most_warps, static_cast<std::size_t>(sm_count) * 64) * sizeof(unsigned)));
  return Status::success();
}

namespace
{

Status blocks_of(const FloorShape& shape, std::size_t bytes, int sm_count, std::int64_t& blocks)
{
  const std::int64_t packs = static_cast<std::int64_t>(bytes / 16);
  if (shape.resident_grid)
  {
    int per_sm = 0;
    REDU_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_for(shape), shape.threads, 0));
    blocks = static_cast<std::int64_t>(per_sm) * sm_count;
  }
  else
  {
    const std::int64_t per_block = static_cast<std::int64_t>(shape.threads) * shape.loads_per_thread;
    blocks = (packs + per_block - 1) / per_block;
  }
  blocks = std::clamp<std::int64_t>(blocks, 1, 0x7fffffff);
  return Status::success();
}

} // namespace

Status FloorKernels::warps_of(const FloorShape& shape, std::size_t bytes, std::int64_t& warps) const
{
  std::int64_t blocks = 0;
  REDU_TRY(blocks_of(shape, bytes, sm_count_, blocks));
  warps = blocks * shape.threads / 32;
  return Status::success();
}

Status FloorKernels::read(const FloorShape& shape, const void* input, std::size_t bytes, cudaStream_t stream)
{
  const ReadKernel kernel   = kernel_for(shape);
  const std::int64_t packs  = static_cast<std::int64_t>(bytes / 16);
  const int tail_bytes      = static_cast<int>(bytes % 16);
  std::int64_t blocks       = 0;
  REDU_TRY(blocks_of(shape, bytes, sm_count_, blocks));
  const std::size_t words = static_cast<std::size_t>(blocks) * shape.threads / 32 * sizeof(unsigned);
  if (warp_words_.bytes() < words)
  {
    return Status::invalid("floor: a read of " + std::to_string(bytes) + " bytes in " + shape.name()
                           + " needs more output words than init() reserved");
  }
  kernel<<<static_cast<unsigned>(blocks), shape.threads, 0, stream>>>(
    static_cast<const Pack<std::int32_t>*>(input), packs, tail_bytes, warp_words_.as<unsigned>());
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

Status FloorKernels::empty(cudaStream_t stream) const
{
  empty_kernel<<<1, 32, 0, stream>>>();
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

} // namespace redu::bench
