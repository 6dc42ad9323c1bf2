// Modern family, lesson 5: thread-block clusters combine through distributed shared memory (Hopper).
//
// Idea: on sm_90 a cluster of up to 8 (portably) blocks is co-scheduled on one GPC, can synchronise
// in hardware (barrier.cluster) and can read each other's shared memory directly (DSMEM). So the first
// level of the combine needs no global memory at all: each block leaves its result in its own shared
// memory, the cluster synchronises, and the cluster's first block reads the 8 values over DSMEM and
// reduces them in one warp. Only one partial per cluster goes to global memory, where the last cluster
// to arrive (ticket, as in lesson 3) reduces them in index order. A grid of one cluster, which covers
// small inputs, writes the result straight from DSMEM: one launch, no atomics, no global partials.
// Flaw removed (vs lesson 3): 8x fewer partials and ticket atomics, and for one-cluster grids none.
// Flaw introduced: sm_90 or later only, in the GPU and in the code compiled for it (Info::needs: elsewhere
// the contract lists it unavailable and refuses a call before anything is launched); the grid is
// a multiple of the cluster size, and which clusters fit at once depends on the GPC layout
// (cudaOccupancyMaxActiveClusters), not only on per-SM occupancy. Measured on an H100 (DESIGN.md), the
// cluster launch costs more latency than the global atomics it saves: for small inputs this is the
// slowest of the single-launch lessons, and a lesson in measuring before believing.
// Requirements: any n (64-bit), input aligned to its element size; workspace zero-filled once (the
// ticket is left at zero); calls sharing a workspace stream-ordered. Deterministic.
// Source: CUDA C++ Programming Guide, Thread Block Clusters and Distributed Shared Memory; the ticket
// of the Guide's threadFenceReduction sample.
#include "common/contract/typed_reduction.cuh"
#include "common/device/grid_ticket.cuh"
#include "common/device/range_fold.cuh"
#include "common/device/warp_reduce.cuh"
#include "handwritten/modern/grid_shape.cuh"

#include <cooperative_groups.h>

namespace redu::modern
{
namespace
{

// The ticket sits in the first 16 bytes of the workspace; the per-cluster partials follow, 16-byte aligned.
constexpr std::size_t partials_offset = 16;

// The cluster API exists in code compiled for sm_90 and later only. For older targets the kernel is
// empty, and never launched: where the GPU runs that code, the contract refuses modern.cluster (Info::needs).
template <class T, class ReduceOp, bool EvictFirst>
__global__ void __launch_bounds__(block_threads)
    cluster_reduce(const T* __restrict__ in, std::int64_t n, std::int64_t tiles_per_block,
                   T* __restrict__ out, T* partials, unsigned* ticket, ReduceOp op)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg                    = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  __shared__ T block_value;

  T value = block_fold<block_threads, unroll>(in, n, blockIdx.x, tiles_per_block, InputLoad<EvictFirst>{}, op);
  if (threadIdx.x == 0)
  {
    block_value = value;
  }
  cluster.sync(); // release/acquire at cluster scope: every block's value is readable by its peers
  const bool leader = cluster.block_rank() == 0;
  if (leader && threadIdx.x < 32)
  {
    value = threadIdx.x < cluster_blocks ? *cluster.map_shared_rank(&block_value, threadIdx.x)
                                         : ReduceOp::template identity<T>();
    value = warp_reduce(value, op);
  }
  cluster.sync(); // a block's shared memory must outlive the leader's reads of it
  if (!leader)
  {
    return;
  }

  const unsigned clusters = gridDim.x / cluster_blocks;
  if (clusters == 1)
  {
    if (threadIdx.x == 0)
    {
      *out = value;
    }
    return;
  }
  __shared__ bool is_last;
  if (threadIdx.x == 0)
  {
    partials[blockIdx.x / cluster_blocks] = value;
    is_last                               = last_arrival(ticket, clusters);
  }
  __syncthreads(); // also separates the two uses of block_reduce's shared slots
  if (!is_last)
  {
    return;
  }
  value = block_fold_all<block_threads, unroll>(partials, clusters, CoherentLoad{}, op);
  if (threadIdx.x == 0)
  {
    *out    = value;
    *ticket = 0;
  }
#endif
}

class ClusterDsmem : public TypedReduction<ClusterDsmem>
{
public:
  ClusterDsmem()
    : TypedReduction({.name          = "modern.cluster",
                      .family        = "modern",
                      .source        = "CUDA C++ Programming Guide: Thread Block Clusters, Distributed Shared Memory",
                      .idea          = "8-block clusters combine over DSMEM; last cluster reduces cluster partials",
                      .kinds         = {Kind::full},
                      .needs         = {.required = {Feature::thread_block_clusters},
                                        .optional = {Feature::l2_cache_hints},
                                        .kernel   = kernel_of(cluster_reduce<float, SumOp, false>)}})
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const
  {
    return partials_offset + (max_grid / cluster_blocks) * sizeof(T);
  }

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
    constexpr auto kernel = cluster_reduce<T, ReduceOp, EvictFirst>;
    cudaLaunchAttribute cluster_shape{};
    cluster_shape.id               = cudaLaunchAttributeClusterDimension;
    cluster_shape.val.clusterDim.x = cluster_blocks;
    cluster_shape.val.clusterDim.y = 1;
    cluster_shape.val.clusterDim.z = 1;
    cudaLaunchConfig_t config{};
    config.blockDim = dim3(block_threads);
    config.gridDim  = dim3(cluster_blocks);
    config.stream   = stream;
    config.attrs    = &cluster_shape;
    config.numAttrs = 1;

    static std::atomic<int> resident_clusters_cache[cached_devices] = {};
    int resident_clusters                                           = 0;
    REDU_TRY(cached_per_device(resident_clusters_cache, resident_clusters, [&](int, int& value) {
      REDU_CUDA_TRY(cudaOccupancyMaxActiveClusters(&value, kernel, &config));
      return Status::success();
    }));
    // The grid rule of lessons 1-3, rounded up to whole clusters; blocks past the last tile fold nothing.
    GridRule rule;
    REDU_TRY(grid_rule(rule));
    const std::int64_t resident = std::int64_t{resident_clusters} * cluster_blocks;
    LaunchShape shape           = shape_for<T>(p.n, block_threads * unroll, resident, rule);
    config.gridDim = dim3((shape.blocks + cluster_blocks - 1) / cluster_blocks * cluster_blocks);

    auto* base = static_cast<unsigned char*>(ws.data);
    REDU_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, static_cast<const T*>(p.input), p.n, shape.tiles_per_block,
                                     static_cast<T*>(p.output),
                                     reinterpret_cast<T*>(base + partials_offset), reinterpret_cast<unsigned*>(base),
                                     ReduceOp{}));
    return Status::success();
  }
};

REDU_REGISTER(ClusterDsmem);

} // namespace
} // namespace redu::modern
