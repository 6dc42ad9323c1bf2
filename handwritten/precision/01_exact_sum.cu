// Precision family, lesson 1: a float sum that is exact until one final rounding, and therefore the
// same bits on any GPU, with any grid, block size or order (determinism gpu_to_gpu).
//
// Idea: every float is an integer number of the type's smallest subnormal, so the sum is an integer,
// and integers add associatively. Each element becomes an integer term in 32-bit limbs
// (exact_limbs.cuh); a thread keeps a running sum in a register for as long as its elements land in the
// same limb (ordinary data spans a few exponents, one limb covers 32 of them) and adds it to the block's
// limbs in shared memory when the limb changes; the block's limbs go to the global limbs with integer
// atomics, which are exact and so order-free; the last block (the ticket of lesson modern 3) rounds
// the integer to the element type once, to nearest even. The result is the correctly rounded exact
// sum: error <= u |sum|, against ~log2(n) u sum|x| for a tree.
// Shortcut: the running sum is held in doubles, exact for a bounded count of elements of one exponent
// window (exact_accumulate.cuh: one double for floats, a high and a low double for doubles), so an
// element costs a few bit operations, a compare and one to three double adds.
// Cost: ~9 instructions per float and ~12 per double in the machine code (sm_90), instead of one add.
// At 4.8 TB/s an H200 reads 1.2 G floats per us over 132 SMs at ~1.9 GHz: 4.6 floats per SM per clock,
// against 128 instructions per SM per clock, so up to ~28 instructions per float (~56 per double) keep
// it memory-bound; the H100 (3.35 TB/s) allows ~40 (DESIGN.md).
// The finish, one warp's work with a limb per lane: a grid of one block (n under one tile of 256 x 4 packs,
// 4096 floats or 2048 doubles, or any n when a caller launches one block) rounds its own limbs; a larger
// grid's blocks add theirs to the global limbs, and the last to arrive rounds the total
// (exact_grid_finish.cuh).
// Non-finite inputs are flags: NaN anywhere, or +inf with -inf, gives NaN; one infinity gives itself.
// Requirements: any n (64-bit), input aligned to its element size; workspace zero-filled once by the
// caller and left zero (the last block reads the limbs and the flags, sets them back to 0 and
// resets the ticket).
// Source: the exact accumulators of Kulisch (the "long accumulator") and of Neal's superaccumulators,
// reduced to what a memory-bound GPU sum needs; the single-launch finish of handwritten/modern/03.
#include "common/contract/typed_reduction.cuh"
#include "common/device/grid_ticket.cuh"
#include "common/device/range_fold.cuh"
#include "common/device/tiled_input.cuh"
#include "common/device/vector_load.cuh"
#include "handwritten/modern/grid_shape.cuh"
#include "handwritten/precision/exact_accumulate.cuh"
#include "handwritten/precision/exact_grid_finish.cuh"
#include "handwritten/precision/exact_limbs.cuh"
#include "handwritten/precision/exact_sum.hpp"
#include "handwritten/precision/precision_shape.cuh"

#include <cstring>
#include <string>

namespace redu::precision
{
namespace
{

// At least modern::min_resident_threads resident (64 registers a thread at most): the double kernel's
// 128-bit arithmetic and its out-of-line finish would otherwise take over 200 registers and one block per SM.
template <int Threads, class T>
__global__ void __launch_bounds__(Threads, modern::min_resident_threads / Threads)
    exact_sum(const T* __restrict__ in, std::int64_t n, std::int64_t tiles_per_block, T* __restrict__ out,
              ExactWorkspace<T>* global, bool evict_first)
{
  using F         = ExactFormat<T>;
  using P         = Pack<T>;
  constexpr int L = F::limbs;
  __shared__ long long block_limbs[L];
  __shared__ unsigned block_non_finite;
  for (int j = threadIdx.x; j < L; j += Threads)
  {
    block_limbs[j] = 0;
  }
  if (threadIdx.x == 0)
  {
    block_non_finite = 0;
  }
  __syncthreads();

  const TiledInput<T> input(in, n);
  constexpr std::int64_t tile = static_cast<std::int64_t>(Threads) * unroll;
  const std::int64_t first    = blockIdx.x * tiles_per_block;
  const std::int64_t end      = min(first + tiles_per_block, input.tiles(tile));
  // Tiles between two flushes, so that the running sum stays exact (RunningSum::terms_per_flush; the
  // head and the tail add up to two packs' worth before the first flush).
  constexpr std::int64_t tiles_per_flush =
      (RunningSum<T>::terms_per_flush - 2 * pack_size<T>) / (unroll * pack_size<T>);
  static_assert(tiles_per_flush >= 1);

  RunningSum<T> running;
  if (blockIdx.x == 0 && threadIdx.x < input.head)
  {
    running.add(in[threadIdx.x], block_limbs);
  }
  if (blockIdx.x == 0 && threadIdx.x < input.tail_count)
  {
    running.add(input.tail[threadIdx.x], block_limbs);
  }
  const StreamingLoad load(evict_first); // its L2 priority: common/device/l2_policy.cuh
  // Each tile through fold_partial_round: every load issued before any is used, each behind its own
  // bounds test, then the elements one by one into the running sum; a flush every tiles_per_flush tiles.
  // The family's other loop shape, full tiles without a bounds test (load_packs) and the partial last tile
  // apart, made this kernel's float sum 20% slower at 2^30 on both GPUs at one wave, with the same loads
  // in the machine code (DESIGN.md). Not profiled; with 2 to 4 waves the gap closes, and this loop is as
  // fast at every grid.
  const auto add_pack = [&](int, const P& x) {
    T lane[pack_size<T>];
    std::memcpy(lane, &x.v, sizeof(lane));
#pragma unroll
    for (int e = 0; e < pack_size<T>; ++e)
    {
      running.add(lane[e], block_limbs);
    }
  };
  std::int64_t tiles_to_flush = tiles_per_flush;
  for (std::int64_t t = first; t < end; ++t)
  {
    fold_partial_round<Threads, unroll>(input.body, t * tile + threadIdx.x, input.packs, load, add_pack);
    if (--tiles_to_flush == 0)
    {
      running.flush_warp(block_limbs);
      tiles_to_flush = tiles_per_flush;
    }
  }
  running.flush_lane(block_limbs);
  if (running.non_finite != 0)
  {
    atomicOr(&block_non_finite, running.non_finite);
  }
  __syncthreads();
  // One block: its limbs are the total, so no global limbs and no ticket, whose release, read-modify-write
  // and the total's loads are three L2 round trips, which dominate when n is under one tile (DESIGN.md).
  // Both finishes are warp 0's (exact_grid_finish.cuh).
  if (gridDim.x == 1)
  {
    if (threadIdx.x < 32)
    {
      round_block<T>(block_limbs, block_non_finite, out);
    }
    return;
  }
  if (threadIdx.x < 32)
  {
    publish_block<T>(block_limbs, block_non_finite, global);
  }
  if (!block_arrives_last(&global->ticket, gridDim.x)) // published by warp 0 just above
  {
    return;
  }
  if (threadIdx.x < 32)
  {
    round_total<T>(global, out);
  }
}
template <class T>
Status launch(const T* in, std::int64_t n, T* out, void* workspace, int blocks, int threads,
              std::int64_t tiles_per_block, bool evict_first, cudaStream_t stream)
{
  auto* global = static_cast<ExactWorkspace<T>*>(workspace);
  if (threads == 128)
  {
    exact_sum<128, T><<<blocks, 128, 0, stream>>>(in, n, tiles_per_block, out, global, evict_first);
  }
  else
  {
    exact_sum<block_threads, T><<<blocks, block_threads, 0, stream>>>(in, n, tiles_per_block, out, global, evict_first);
  }
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

template <class T>
Status checked_launch(const T* in, std::int64_t n, T* out, void* workspace, int blocks, int threads,
                      std::int64_t tiles_per_block, cudaStream_t stream)
{
  if (threads != 128 && threads != block_threads)
  {
    return Status::invalid("exact sum: threads must be 128 or " + std::to_string(block_threads));
  }
  const std::int64_t tiles = (n / pack_size<T> + 1 + static_cast<std::int64_t>(threads) * unroll - 1) /
                             (static_cast<std::int64_t>(threads) * unroll);
  if (blocks < 1 || tiles_per_block < 1 || static_cast<std::int64_t>(blocks) * tiles_per_block < tiles)
  {
    return Status::invalid("exact sum: " + std::to_string(blocks) + " blocks of " + std::to_string(tiles_per_block) +
                           " tiles do not cover " + std::to_string(tiles) + " tiles");
  }
  bool evict_first = false;
  REDU_TRY(input_evict_first<T>(n, evict_first));
  return launch(in, n, out, workspace, blocks, threads, tiles_per_block, evict_first, stream);
}

// Correctly rounded: |result - exact| <= u |exact| <= u sum|x|.
double correctly_rounded(DType, std::int64_t)
{
  return 1;
}

class ExactSum : public TypedReduction<ExactSum, TypeList<float, double>, OpList<SumOp>>
{
public:
  ExactSum()
    : TypedReduction(
          {.name   = "precision.exact_sum",
           .family = "precision",
           .source = "Kulisch's long accumulator; Neal, fast exact summation using small and large superaccumulators",
           .idea   = "integer limbs: the exact sum rounded once, the same bits on any GPU and grid",
           .kinds  = {Kind::full},
           .determinism       = input_only,
           .error_factor      = correctly_rounded,
           .correctly_rounded = true,
           .needs             = {.optional = {Feature::l2_cache_hints}}})
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const
  {
    return sizeof(ExactWorkspace<T>);
  }

  template <class T, class ReduceOp> Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    constexpr auto kernel = exact_sum<block_threads, T>;
    modern::LaunchShape shape;
    int waves = 0;
    REDU_TRY(exact_grid_waves(waves));
    REDU_TRY((modern::launch_shape<kernel, block_threads, unroll, T>(p.n, waves, shape)));
    return launch(static_cast<const T*>(p.input), p.n, static_cast<T*>(p.output), ws.data, shape.blocks, block_threads,
                  shape.tiles_per_block, shape.evict_first, stream);
  }
};

REDU_REGISTER(ExactSum);

} // namespace

std::size_t exact_sum_workspace_bytes(bool is_double)
{
  return is_double ? sizeof(ExactWorkspace<double>) : sizeof(ExactWorkspace<float>);
}

Status exact_sum_with_shape(const float* in, std::int64_t n, float* out, void* workspace, int blocks, int threads,
                            std::int64_t tiles_per_block, cudaStream_t stream)
{
  return checked_launch(in, n, out, workspace, blocks, threads, tiles_per_block, stream);
}

Status exact_sum_with_shape(const double* in, std::int64_t n, double* out, void* workspace, int blocks, int threads,
                            std::int64_t tiles_per_block, cudaStream_t stream)
{
  return checked_launch(in, n, out, workspace, blocks, threads, tiles_per_block, stream);
}

} // namespace redu::precision
