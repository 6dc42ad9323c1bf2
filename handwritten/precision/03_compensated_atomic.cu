// Precision family, lesson 3: the compensated float sum of lesson 2, its blocks combined by one atomic.
//
// Idea: lesson 2 spends nothing on the compensation (it reads at modern.last_block's pace, DESIGN.md) but
// finishes as modern.last_block does: the last block reads every block's pair and merges them. Lesson
// modern 2 showed the cheaper finish, one atomic per block into one word (modern.atomic, the fastest
// plain f32 sum below 2^30 on both GPUs). Here each block's pair becomes one double, sum + error (two
// floats' sum in a double: exact but for a rounding at 2^-53 of it), and the blocks add their doubles
// with the hardware's double atomic add; the last block rounds the total to float once.
// Accuracy: each block's pair carries lesson 2's error, (2u + 2 n_b u^2) sum|x| over its own elements;
// the double additions add at most max_grid x 2^-53 x sum|x| = 2^16 x 2^-53 = 2^-13 u x sum|x| (u = 2^-24),
// and the final rounding to float u |sum|: factor 2 + 2 n u + 2, within one rounding of lesson 2's.
// The price is determinism: the doubles are added in the order blocks finish, so the float result can
// differ in its last bit from run to run (not_guaranteed), where lesson 2's fixed tree repeats it.
// Floats only: a double input would need a double-double accumulator for the same trick (a plain double
// atomic add would round every block's partial at double's u and lose the compensation).
// Requirements: any n (64-bit), input aligned to 4 bytes; workspace zero-filled once by the caller and
// calls that share it stream-ordered. A grid of one block writes its result directly.
#include "common/contract/typed_reduction.cuh"
#include "handwritten/modern/atomic_accumulator.cuh"
#include "handwritten/modern/grid_shape.cuh"
#include "handwritten/precision/compensated.cuh"

namespace redu::precision
{
namespace
{

using TotalWord = modern::AccumulatorWord<double, SumOp>; // a double in the workspace, added to atomically

// Capped at modern.atomic's occupancy (modern_shape.cuh, min_resident_threads): uncapped, the double
// total took it to 68 registers and 3 blocks of 256 per SM, a quarter fewer loads in flight.
template <int Threads>
__global__ void __launch_bounds__(Threads, modern::min_resident_threads / Threads)
    compensated_atomic(const float* __restrict__ in, std::int64_t n, std::int64_t tiles_per_block,
                       float* __restrict__ out, TotalWord* total, unsigned* ticket, bool evict_first)
{
  const Compensated<float> c = block_compensated<Threads>(in, n, tiles_per_block, evict_first);
  if (threadIdx.x != 0)
  {
    return;
  }
  if (gridDim.x == 1)
  {
    *out = c.result();
    return;
  }
  double grid_total;
  if (modern::fold_into_total<double, SumOp>(total, ticket, c.result<double>(), grid_total))
  {
    *out = static_cast<float>(grid_total); // the one rounding to float
  }
}

// Lesson 2's bound plus the double additions and the final rounding (above), rounded up to 2.
double compensated_atomic_bound(DType dtype, std::int64_t count)
{
  return compensated_bound(dtype, count) + 2;
}

class CompensatedAtomic : public TypedReduction<CompensatedAtomic, TypeList<float>, OpList<SumOp>>
{
public:
  CompensatedAtomic()
    : TypedReduction({.name         = "precision.compensated_atomic",
                      .family       = "precision",
                      .source       = "Neumaier (1974) per thread and block; the blocks combined as modern.atomic",
                      .idea         = "lesson 2's ~2u error at the atomic finish's pace, paid for in determinism",
                      .kinds        = {Kind::full},
                      .determinism  = arrival_order_float_sums,
                      .error_factor = compensated_atomic_bound,
                      .needs        = {.optional = {Feature::l2_cache_hints}}})
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const
  {
    return 2 * sizeof(TotalWord); // the total, then the ticket counter
  }

  template <class T, class ReduceOp> Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    // Lesson 2's shape (precision_shape.cuh): its block, its pack slots, its tuned grid.
    constexpr auto kernel = compensated_atomic<block_threads>;
    modern::LaunchShape shape;
    int waves = 0;
    REDU_TRY(grid_waves(waves));
    REDU_TRY((modern::launch_shape<kernel, block_threads, compensated_unroll<float>, float>(p.n, waves, shape)));
    auto* total = static_cast<TotalWord*>(ws.data);
    kernel<<<shape.blocks, block_threads, 0, stream>>>(static_cast<const float*>(p.input), p.n, shape.tiles_per_block,
                                                       static_cast<float*>(p.output), total,
                                                       reinterpret_cast<unsigned*>(total + 1), shape.evict_first);
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }
};

REDU_REGISTER(CompensatedAtomic);

} // namespace
} // namespace redu::precision
