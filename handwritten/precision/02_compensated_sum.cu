// Precision family, lesson 2: a compensated float sum (Kahan-Babuska-Neumaier), in one launch.
//
// Idea: a float add loses the low bits of the smaller operand; Fast2Sum recovers them exactly
// (t = s + x; the error is (s - t) + x when |s| >= |x|, else (x - t) + s), and a second accumulator
// collects the errors. Each thread keeps `compensated_unroll<T>` such (sum, error) pairs, one per pack slot, so their
// dependent chains overlap; pairs merge with TwoSum (the branch-free error-free sum of two floats) across
// the thread, the warp (shuffles), the block and, through partials and the ticket of lesson modern 3,
// the grid, always in the same order: the bits repeat run to run on one GPU (fixed_tree).
// Accuracy: |result - exact| <= (2u + 2 n u^2) sum|x| (Higham, Accuracy and Stability of Numerical
// Algorithms, section 4.3, for Kahan's and Neumaier's variants): about 2u for n below 1/u, against
// (log2 n + 1) 2u for a tree, and independent of the tree's shape in first order.
// Cost: ~8 flops per element instead of 1, far below what a memory-bound sum leaves idle (~28
// instructions per float at 4.8 TB/s on an H200, 01_exact_sum.cu says how), so the prediction is the
// plain sum's bandwidth (NOTES.md).
// Requirements: any n (64-bit), input aligned to its element size; workspace zero-filled once by the
// caller (the ticket is left at zero after every call).
// Source: Neumaier, "Rundungsfehleranalyse einiger Verfahren zur Summation endlicher Summen" (1974);
// Knuth's TwoSum (TAOCP vol. 2, 4.2.2).
#include "common/contract/typed_reduction.cuh"
#include "common/device/grid_ticket.cuh"
#include "common/device/range_fold.cuh"
#include "common/device/tiled_input.cuh"
#include "common/device/vector_load.cuh"
#include "handwritten/modern/grid_shape.cuh"
#include "handwritten/precision/precision_shape.cuh"

#include <cstring>
#include <limits>

namespace redu::precision
{
namespace
{

template <class T> struct Compensated
{
  T sum   = 0;
  T error = 0;

  // Neumaier's step: Fast2Sum with the operands in magnitude order.
  __device__ __forceinline__ void add(T x)
  {
    const T t = sum + x;
    error += fabs(sum) >= fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }

  // Knuth's TwoSum: the exact error of sum + other.sum whatever their magnitudes; the errors add.
  __device__ __forceinline__ void merge(const Compensated& other)
  {
    const T t  = sum + other.sum;
    const T bp = t - sum;
    const T e  = (sum - (t - bp)) + (other.sum - bp);
    sum        = t;
    error += other.error + e;
  }

  // An infinite or NaN sum is the answer alone: its error term is NaN by then (inf - inf).
  __device__ __forceinline__ T result() const { return isfinite(sum) ? sum + error : sum; }
};

template <class T> __device__ __forceinline__ Compensated<T> shuffle_xor(const Compensated<T>& c, int mask)
{
  return {__shfl_xor_sync(0xffffffffu, c.sum, mask), __shfl_xor_sync(0xffffffffu, c.error, mask)};
}

// The block's pairs merged in a fixed order (butterflies within warps, then warp 0 over the warps);
// valid in thread 0. Contains __syncthreads.
template <int Threads, class T> __device__ __forceinline__ Compensated<T> block_merge(Compensated<T> c)
{
  __shared__ T sums[Threads / 32];
  __shared__ T errors[Threads / 32];
  for (int mask = 16; mask > 0; mask /= 2)
  {
    c.merge(shuffle_xor(c, mask));
  }
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (lane == 0)
  {
    sums[warp]   = c.sum;
    errors[warp] = c.error;
  }
  __syncthreads();
  if (warp == 0)
  {
    c = lane < Threads / 32 ? Compensated<T>{sums[lane], errors[lane]} : Compensated<T>{};
    for (int mask = 16; mask > 0; mask /= 2)
    {
      c.merge(shuffle_xor(c, mask));
    }
  }
  return c;
}

// The ticket sits in the first 16 bytes of the workspace, the partial pairs after it.
constexpr std::size_t partials_offset = 16;

template <int Threads, class T>
__global__ void __launch_bounds__(Threads)
    compensated_sum(const T* __restrict__ in, std::int64_t n, std::int64_t tiles_per_block, T* __restrict__ out,
                    Compensated<T>* partials, unsigned* ticket, bool evict_first)
{
  using P = Pack<T>;
  const TiledInput<T> input(in, n);
  constexpr std::int64_t tile = static_cast<std::int64_t>(Threads) * compensated_unroll<T>;
  const std::int64_t first    = blockIdx.x * tiles_per_block;
  const std::int64_t end      = min(first + tiles_per_block, input.tiles(tile));

  Compensated<T> slot[compensated_unroll<T>]; // one chain per pack slot, so the chains' latencies overlap
  if (blockIdx.x == 0 && threadIdx.x < input.head)
  {
    slot[0].add(in[threadIdx.x]);
  }
  if (blockIdx.x == 0 && threadIdx.x < input.tail_count)
  {
    slot[compensated_unroll<T> - 1].add(input.tail[threadIdx.x]);
  }
  const StreamingLoad load(evict_first); // its L2 priority: common/device/l2_policy.cuh
  // Full tiles with every load issued before any is used, the last tile predicated (fold_tile_run). A
  // bounds test on each load of every tile (the first spelling) let the compiler fold each pack before
  // loading the next: one 16-byte load in flight per thread, whatever compensated_unroll says.
  fold_tile_run<Threads>(input.body, input.packs, first, end, load, slot, [](Compensated<T> c, const P& x) {
    T lane[pack_size<T>];
    std::memcpy(lane, &x.v, sizeof(lane));
#pragma unroll
    for (int e = 0; e < pack_size<T>; ++e)
    {
      c.add(lane[e]);
    }
    return c;
  });
#pragma unroll
  for (int u = 1; u < compensated_unroll<T>; ++u)
  {
    slot[0].merge(slot[u]);
  }
  Compensated<T> c = block_merge<Threads>(slot[0]);
  if (gridDim.x == 1)
  {
    if (threadIdx.x == 0)
    {
      *out = c.result();
    }
    return;
  }
  if (!block_arrives_last(ticket, gridDim.x, [&] { partials[blockIdx.x] = c; }))
  {
    return;
  }
  // Partials written in this launch: read at L2 (__ldcg), never through the read-only path.
  c = Compensated<T>{};
  for (int i = threadIdx.x; i < static_cast<int>(gridDim.x); i += Threads)
  {
    c.merge(Compensated<T>{__ldcg(&partials[i].sum), __ldcg(&partials[i].error)});
  }
  c = block_merge<Threads>(c);
  if (threadIdx.x == 0)
  {
    *out    = c.result();
    *ticket = 0;
  }
}

// (2u + 2 n u^2) sum|x| as the contract's factor x u x sum|x|.
double compensated_bound(DType dtype, std::int64_t count)
{
  const double u = dtype == DType::f32 ? std::numeric_limits<float>::epsilon() / 2 : std::numeric_limits<double>::epsilon() / 2;
  return 2 + 2 * static_cast<double>(count) * u;
}

class CompensatedSum : public TypedReduction<CompensatedSum, TypeList<float, double>, OpList<SumOp>>
{
public:
  CompensatedSum()
    : TypedReduction({.name         = "precision.compensated_sum",
                      .family       = "precision",
                      .source       = "Neumaier (1974) compensated summation; Knuth's TwoSum to merge",
                      .idea         = "a second accumulator keeps each add's lost bits: ~2u error instead of ~2u log2 n",
                      .kinds        = {Kind::full},
                      .error_factor = compensated_bound})
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const
  {
    return partials_offset + modern::max_grid * sizeof(Compensated<T>);
  }

  template <class T, class ReduceOp> Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    constexpr auto kernel = compensated_sum<block_threads, T>;
    modern::LaunchShape shape;
    int waves = 0;
    REDU_TRY(grid_waves(waves));
    REDU_TRY((modern::launch_shape<kernel, block_threads, compensated_unroll<T>, T>(p.n, waves, shape)));
    auto* base = static_cast<unsigned char*>(ws.data);
    kernel<<<shape.blocks, block_threads, 0, stream>>>(static_cast<const T*>(p.input), p.n, shape.tiles_per_block,
                                                       static_cast<T*>(p.output),
                                                       reinterpret_cast<Compensated<T>*>(base + partials_offset),
                                                       reinterpret_cast<unsigned*>(base), shape.evict_first);
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }
};

REDU_REGISTER(CompensatedSum);

} // namespace
} // namespace redu::precision
