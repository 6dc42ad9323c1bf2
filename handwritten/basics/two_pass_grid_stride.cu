// The simplest correct full-array reduction, and the yardstick for every lesson kernel.
//
// Idea: a fixed grid of blocks walks the whole array with a grid-stride loop, each thread folding
// its elements into one register; each block reduces its threads (warp shuffles, then one value per
// warp through shared memory) and writes one partial; a second launch of a single block reduces the
// partials. Two launches, no atomics, so the result is the same bit pattern on every run.
// Requirements: none on n (64-bit indices); the partials live in the workspace.
// Source: the structure of Harris's reduce6 and of CUB's two-pass DeviceReduce, without tuning.
#include "common/contract/typed_reduction.cuh"
#include "common/device/block_reduce.cuh"

namespace redu
{
namespace
{

constexpr int block_threads = 256;
// Enough blocks to fill an H100 (132 SMs x 8 blocks of 256) and still fit one finishing block.
constexpr int max_blocks = 1024;

template <class T, class ReduceOp>
__global__ void __launch_bounds__(block_threads)
  grid_stride_reduce(const T* __restrict__ in, std::int64_t n, T* __restrict__ out, ReduceOp op)
{
  T value                  = ReduceOp::template identity<T>();
  const std::int64_t step  = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
  {
    value = op(value, in[i]);
  }
  value = block_reduce<block_threads>(value, op);
  if (threadIdx.x == 0)
  {
    out[blockIdx.x] = value;
  }
}

class TwoPassGridStride : public TypedReduction<TwoPassGridStride>
{
public:
  TwoPassGridStride()
      : TypedReduction({.name          = "basics.two_pass_grid_stride",
                        .family        = "basics",
                        .source        = "project yardstick (structure of Harris reduce6 / CUB two-pass)",
                        .idea          = "grid-stride loop, shuffle block reduce, second single-block pass",
                        .kinds         = {Kind::full}})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem&) const
  {
    return max_blocks * sizeof(T);
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    const std::int64_t wanted = (p.n + block_threads - 1) / block_threads;
    const int blocks          = static_cast<int>(wanted < 1 ? 1 : (wanted < max_blocks ? wanted : max_blocks));
    auto* partials            = static_cast<T*>(ws.data);
    grid_stride_reduce<<<blocks, block_threads, 0, stream>>>(static_cast<const T*>(p.input), p.n, partials, ReduceOp{});
    REDU_CUDA_TRY(cudaPeekAtLastError());
    grid_stride_reduce<<<1, block_threads, 0, stream>>>(partials, blocks, static_cast<T*>(p.output), ReduceOp{});
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }
};

REDU_REGISTER(TwoPassGridStride);

} // namespace
} // namespace redu
