// Modern family, lesson 4: one launch, with a grid-wide barrier between the two passes.
//
// Idea: a cooperative launch guarantees that every block of the grid is resident at once, which makes a
// grid-wide barrier (cooperative_groups::this_grid().sync()) legal. Every block writes its partial,
// the grid synchronises, and block 0 reduces the partials in index order: the two passes of lesson 1,
// in one kernel, with the barrier (and its memory ordering) provided by the runtime instead of a
// hand-made fence-and-ticket protocol as in lesson 3.
// Flaw removed (vs lesson 3): no counter to keep in the workspace and reset, no reasoning about fences.
// Flaw introduced: every block waits at the barrier for the slowest one instead of retiring, and the
// grid can never exceed one wave of resident blocks: large inputs lose the many-wave load balancing of
// lessons 1-3 and run as a persistent grid of contiguous tile runs.
// Requirements: any n (64-bit), input aligned to its element size; a device that supports cooperative
// launches (cudaDevAttrCooperativeLaunch, every GPU since Pascal). Deterministic.
// Source: CUDA C++ Programming Guide, Cooperative Groups, grid synchronisation.
#include "common/contract/typed_reduction.cuh"
#include "common/device/range_fold.cuh"
#include "handwritten/modern/grid_shape.cuh"

#include <cooperative_groups.h>

namespace redu::modern
{
namespace
{

template <class T, class ReduceOp, bool EvictFirst>
__global__ void __launch_bounds__(block_threads)
    cooperative_reduce(const T* __restrict__ in, std::int64_t n, std::int64_t tiles_per_block,
                       T* __restrict__ out, T* partials, ReduceOp op)
{
  T value = block_fold<block_threads, unroll>(in, n, blockIdx.x, tiles_per_block, InputLoad<EvictFirst>{}, op);
  if (gridDim.x == 1)
  {
    if (threadIdx.x == 0)
    {
      *out = value;
    }
    return;
  }
  if (threadIdx.x == 0)
  {
    partials[blockIdx.x] = value;
  }
  cooperative_groups::this_grid().sync();
  if (blockIdx.x != 0)
  {
    return;
  }
  // Partials written in this launch: the coherent path, never the read-only one.
  value = block_fold_all<block_threads, unroll>(partials, gridDim.x, CoherentLoad{}, op);
  if (threadIdx.x == 0)
  {
    *out = value;
  }
}

class CooperativeGridSync : public TypedReduction<CooperativeGridSync>
{
public:
  CooperativeGridSync()
    : TypedReduction({.name          = "modern.cooperative",
                      .family        = "modern",
                      .source        = "CUDA C++ Programming Guide, Cooperative Groups: grid synchronization",
                      .idea          = "one cooperative launch: partials, grid.sync(), block 0 reduces them",
                      .kinds         = {Kind::full},
                      .needs         = {.required = {Feature::cooperative_launch},
                                        .optional = {Feature::l2_cache_hints},
                                        .kernel   = kernel_of(cooperative_reduce<float, SumOp, false>)}})
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const { return max_grid * sizeof(T); }

  template <class T, class ReduceOp> Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    return with_input_load<T>(p.n, [&](auto evict_first) { // grid_shape.cuh
      return launch<T, ReduceOp, decltype(evict_first)::value>(p, ws, stream);
    });
  }

private:
  template <class T, class ReduceOp, bool EvictFirst>
  static Status launch(const Problem& p, Workspace ws, cudaStream_t stream)
  {
    constexpr auto kernel = cooperative_reduce<T, ReduceOp, EvictFirst>;
    LaunchShape shape;
    REDU_TRY((grid_shape<kernel, block_threads, unroll, T>(p.n, GridRule{cooperative_waves, 1}, shape)));
    const auto* in         = static_cast<const T*>(p.input);
    std::int64_t n         = p.n;
    std::int64_t per_block = shape.tiles_per_block;
    auto* out              = static_cast<T*>(p.output);
    auto* partials         = static_cast<T*>(ws.data);
    ReduceOp op{};
    void* args[] = {&in, &n, &per_block, &out, &partials, &op};
    REDU_CUDA_TRY(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), dim3(shape.blocks),
                                              dim3(block_threads), args, 0, stream));
    return Status::success();
  }
};

REDU_REGISTER(CooperativeGridSync);

} // namespace
} // namespace redu::modern
