// A hand-written kernel assembled from CUB's block-level building blocks: cub::BlockLoad brings a
// tile into registers (vectorised when the input is 16-byte aligned), cub::ThreadReduce folds each
// thread's items, cub::BlockReduce combines the block. This is how a student gets CUB's tuned pieces
// inside their own kernel: the grid-stride structure is ours, the block-wide steps are CUB's.
// Two passes (partials, then one block), deterministic; any n; any element-aligned pointer.
#include "common/contract/typed_reduction.cuh"

#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/thread/thread_reduce.cuh>

#include <cstdint>

namespace redu
{
namespace
{

constexpr int block_threads    = 256;
constexpr int items_per_thread = 16;
constexpr int tile             = block_threads * items_per_thread;
constexpr int max_blocks       = 1056; // 132 SMs x 8 resident blocks on an H100

template <cub::BlockLoadAlgorithm Load, class T, class ReduceOp>
__global__ void __launch_bounds__(block_threads)
  block_primitives_reduce(const T* __restrict__ in, std::int64_t n, T* __restrict__ out, ReduceOp op)
{
  using BlockLoad   = cub::BlockLoad<T, block_threads, items_per_thread, Load>;
  using BlockReduce = cub::BlockReduce<T, block_threads>;
  __shared__ union
  {
    typename BlockLoad::TempStorage load;
    typename BlockReduce::TempStorage reduce;
  } storage;

  T value = ReduceOp::template identity<T>();
  T items[items_per_thread];
  for (std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * tile; base < n;
       base += static_cast<std::int64_t>(gridDim.x) * tile)
  {
    const std::int64_t remaining = n - base;
    if (remaining >= tile)
    {
      BlockLoad(storage.load).Load(in + base, items);
    }
    else // the ragged last tile: out-of-range items read as the identity
    {
      BlockLoad(storage.load).Load(in + base, items, static_cast<int>(remaining), ReduceOp::template identity<T>());
    }
    value = op(value, cub::ThreadReduce(items, op));
    __syncthreads(); // the union's load storage is reused by the next tile (and by BlockReduce)
  }
  value = BlockReduce(storage.reduce).Reduce(value, op);
  if (threadIdx.x == 0)
  {
    out[blockIdx.x] = value;
  }
}

template <cub::BlockLoadAlgorithm Load, class T, class ReduceOp>
Status launch_pass(const T* in, std::int64_t n, T* out, int blocks, cudaStream_t stream)
{
  block_primitives_reduce<Load><<<blocks, block_threads, 0, stream>>>(in, n, out, ReduceOp{});
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

class CubBlockPrimitives : public TypedReduction<CubBlockPrimitives>
{
public:
  CubBlockPrimitives()
      : TypedReduction({.name          = "cub.block_primitives",
                        .family        = "cub",
                        .source        = "cub::BlockLoad (vectorised) + cub::BlockReduce in a hand-written grid-stride kernel",
                        .idea          = "CUB's block-level building blocks inside our own two-pass kernel",
                        .kinds         = {Kind::full},
                        .role          = Role::baseline})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem&) const
  {
    return max_blocks * sizeof(T);
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    const auto* in   = static_cast<const T*>(p.input);
    auto* partials   = static_cast<T*>(ws.data);
    const auto tiles = (p.n + tile - 1) / tile;
    const int blocks = static_cast<int>(tiles < 1 ? 1 : (tiles < max_blocks ? tiles : max_blocks));
    // Vector loads need every tile start 16-byte aligned: tiles are multiples of 16 bytes, so only
    // the base pointer matters.
    if (reinterpret_cast<std::uintptr_t>(in) % 16 == 0)
    {
      REDU_TRY((launch_pass<cub::BLOCK_LOAD_VECTORIZE, T, ReduceOp>(in, p.n, partials, blocks, stream)));
    }
    else
    {
      REDU_TRY((launch_pass<cub::BLOCK_LOAD_DIRECT, T, ReduceOp>(in, p.n, partials, blocks, stream)));
    }
    return launch_pass<cub::BLOCK_LOAD_DIRECT, T, ReduceOp>(partials, blocks, static_cast<T*>(p.output), 1, stream);
  }
};

REDU_REGISTER(CubBlockPrimitives);

} // namespace
} // namespace redu
