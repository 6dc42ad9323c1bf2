// Halves, lesson 2: bf16 and f16 full arrays finished with one atomic per block, in one launch.
//
// Idea: modern.atomic (handwritten/modern/02_atomic_finish.cu) with the element widened on load, as lesson
// 1 widens modern.last_block. Its launch shape is modern.atomic's, constant for constant, block size for
// large inputs included (chosen by bytes, so n halves take the shape of n/2 floats): the same bytes in
// flight, the same tiles in bytes, the same one-word finish. Lesson 1 showed that the widening costs
// nothing against the same shape; the f32 sum modern.atomic is the fastest plain sum below 2^30 on both
// GPUs, and lesson 1's gap to it is its finish (the last block reading every partial), not the widening.
// Sum and sum_squares fold each block's float into a double accumulator (atomic_accumulator.cuh; exact,
// the f32 atomic add would flush subnormals) and round it to float once; min and max fold the widened
// float's order-preserving key and narrow the winner back to the input type (exact).
// Determinism: sums are added in the order blocks finish (not_guaranteed, as modern.atomic's float sums);
// min and max are order-free but for the sign of a zero.
// Requirements: any n (64-bit), input aligned to 2 bytes; workspace zero-filled once by the caller and
// calls that share it stream-ordered. A grid of one block writes its result directly.
#include "common/contract/typed_reduction.cuh"
#include "handwritten/halves/fold.cuh"
#include "handwritten/modern/atomic_accumulator.cuh"
#include "handwritten/modern/grid_shape.cuh"

namespace redu::halves
{
namespace
{

using modern::AccumulatorWord;

// Capped at modern.atomic's occupancy (modern_shape.cuh, min_resident_threads): uncapped, bf16 took 71
// registers at 256 threads and 76 at 512, 3 blocks per SM and 1, where modern.atomic holds 4 and 2.
// The input's load form is a template argument, as in the modern family (InputLoad, vector_load.cuh).
template <int Threads, class T, class ReduceOp, bool EvictFirst>
__global__ void __launch_bounds__(Threads, modern::min_resident_threads / Threads)
    atomic_halves(const T* __restrict__ in, std::int64_t n, std::int64_t tiles_per_block,
                  Output<T, ReduceOp>* __restrict__ out, AccumulatorWord<float, ReduceOp>* accumulator,
                  unsigned* ticket)
{
  const ReduceOp op{};
  const float mine  = fold_half_tiles<Threads, modern::unroll>(in, n, blockIdx.x, tiles_per_block,
                                                               InputLoad<EvictFirst>{}, op);
  const float value = block_reduce<Threads>(mine, op);
  if (threadIdx.x != 0)
  {
    return;
  }
  if (gridDim.x == 1)
  {
    *out = static_cast<Output<T, ReduceOp>>(value); // float, or a min/max narrowed back: exact
    return;
  }
  float total;
  if (modern::fold_into_total<float, ReduceOp>(accumulator, ticket, value, total))
  {
    *out = static_cast<Output<T, ReduceOp>>(total);
  }
}

// The error bound's arrival-order term (Info::unordered_partials): the float partials are exact in the
// double accumulator, whose only rounding that counts against f32's u is the final one to float.
std::int64_t final_rounding(const Problem&)
{
  return 1;
}

class AtomicHalves
    : public TypedReduction<AtomicHalves, TypeList<__nv_bfloat16, __half>, OpList<SumOp, SumSquaresOp, MinOp, MaxOp>>
{
public:
  AtomicHalves()
    : TypedReduction({.name        = "halves.atomic",
                      .family      = "halves",
                      .source      = "modern.atomic with 8 halves per 16-byte load widened to float",
                      .idea        = "bf16/f16 at the fastest f32 sum's bytes per second: one atomic per block",
                      .kinds       = {Kind::full},
                      .determinism = arrival_order_float_sums,
                      .unordered_partials = final_rounding,
                      .needs              = {.optional = {Feature::l2_cache_hints}}})
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const
  {
    return 2 * sizeof(AccumulatorWord<float, ReduceOp>); // accumulator, then the ticket counter
  }

  template <class T, class ReduceOp> Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    // Large inputs take larger blocks, at modern.atomic's threshold in bytes (modern_shape.cuh says why).
    bool large = false;
    REDU_TRY(modern::takes_large_blocks(p.n, sizeof(T), large));
    if (large)
    {
      return launch<modern::large_input_threads, T, ReduceOp>(p, ws, stream);
    }
    return launch<modern::block_threads, T, ReduceOp>(p, ws, stream);
  }

private:
  template <int Threads, class T, class ReduceOp>
  static Status launch(const Problem& p, Workspace ws, cudaStream_t stream)
  {
    return modern::with_input_load<T>(p.n, [&](auto evict_first) { // grid_shape.cuh
      constexpr auto kernel = atomic_halves<Threads, T, ReduceOp, decltype(evict_first)::value>;
      modern::LaunchShape shape;
      modern::GridRule rule;
      REDU_TRY(modern::grid_rule(rule)); // the GPU's tuned values, as modern.atomic's
      REDU_TRY((modern::grid_shape<kernel, Threads, modern::unroll, T>(p.n, rule, shape)));
      auto* accumulator = static_cast<AccumulatorWord<float, ReduceOp>*>(ws.data);
      kernel<<<shape.blocks, Threads, 0, stream>>>(static_cast<const T*>(p.input), p.n, shape.tiles_per_block,
                                                   static_cast<Output<T, ReduceOp>*>(p.output), accumulator,
                                                   reinterpret_cast<unsigned*>(accumulator + 1));
      REDU_CUDA_TRY(cudaPeekAtLastError());
      return Status::success();
    });
  }
};

REDU_REGISTER(AtomicHalves);

} // namespace
} // namespace redu::halves
