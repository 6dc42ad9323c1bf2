// Modern family, lesson 2: blocks combine their results with atomics, in one launch.
//
// Idea: instead of writing partials for a second pass, each block folds its result straight into one
// accumulator with a hardware atomic (add for sums; max for min and max). The accumulator lives in the
// workspace and must start at the operator's identity, and the workspace starts zero-filled, so values
// are stored as keys whose all-zero word is the identity: sums as themselves (0 is their identity);
// min and max through an order-preserving map to unsigned integers (flip the sign bit of integers; of
// floats flip the sign bit of positives and every bit of negatives), min as the complement so that one
// atomicMax serves both. A ticket counter (one acq_rel atomicAdd, last_arrival in common/device/grid_ticket.cuh)
// elects the last block, which decodes the accumulator into the output and zeroes accumulator and
// counter for the next call. Sums of 32-bit integers need no ticket: the arrivals are counted in the low
// half of a 64-bit word whose high half is the sum (atomic_accumulator.cuh, counts_arrivals), so one
// atomic both adds and elects.
// Flaw removed (vs lesson 1): the second launch, and the partial array: the finishing block reads one
// word instead of one partial per block.
// Flaw introduced: floating-point sums are added in the order blocks finish, so they are not
// reproducible bit for bit (determinism not_guaranteed). Integer sums, min and max still are (exact or
// order-free). NaN is outside the key order: with NaN inputs min/max are undefined here.
// A trap avoided: the f32 global atomic add (red.global.add.f32) flushes subnormal operands and results
// to zero, so a float sum of subnormals came out 0. Float sums therefore accumulate in a double (its
// atomic add keeps subnormals, and every float partial is exact in it); the last block rounds it to
// float once. Same one atomic per block, and the float error bound gains no term for the arrival order
// (unordered_partials: 0 for floats, the block count for doubles).
// Requirements: any n (64-bit), input aligned to its element size; workspace zero-filled once by the
// caller and calls that share it stream-ordered. A grid of one block writes its result directly.
// Source: Lei Mao, "CUDA Reduction", Large Array Reduce Sum (finish with atomics), made single-launch
// with the ticket of the CUDA Programming Guide's threadFenceReduction sample.
#include "common/contract/typed_reduction.cuh"
#include "common/device/grid_ticket.cuh"
#include "common/device/range_fold.cuh"
#include "handwritten/modern/atomic_accumulator.cuh"
#include "handwritten/modern/grid_shape.cuh"

#include <algorithm>

namespace redu::modern
{
namespace
{

// Accumulator<T, ReduceOp> (combine, decode), AccumulatorWord and fold_into_total (the block's value in,
// the total out in the last block): atomic_accumulator.cuh, shared with the kernels that finish this way.

template <int Threads, class T, class ReduceOp, bool EvictFirst>
__global__ void __launch_bounds__(Threads)
    atomic_finish(const T* __restrict__ in, std::int64_t n, std::int64_t tiles_per_block,
                  T* __restrict__ out, AccumulatorWord<T, ReduceOp>* accumulator, unsigned* ticket, ReduceOp op)
{
  const T value = block_fold<Threads, unroll>(in, n, blockIdx.x, tiles_per_block, InputLoad<EvictFirst>{}, op);
  if (threadIdx.x != 0)
  {
    return;
  }
  if (gridDim.x == 1)
  {
    *out = value;
    return;
  }
  T total;
  if (fold_into_total<T, ReduceOp>(accumulator, ticket, value, total)) // atomic_accumulator.cuh
  {
    *out = total;
  }
}

// The error bound's arrival-order term (Info::unordered_partials): a double sum adds up to one partial
// per block in arrival order, at most one block per tile of block_threads x unroll packs and at most
// max_grid; a float sum adds only the final rounding of its double accumulator.
std::int64_t partials_in_arrival_order(const Problem& p)
{
  if (p.dtype != DType::f64)
  {
    return 1;
  }
  const std::int64_t tiles = p.n / (pack_size<double> * block_threads * unroll) + 1;
  return std::min<std::int64_t>(tiles, max_grid);
}

class AtomicFinish : public TypedReduction<AtomicFinish>
{
public:
  AtomicFinish()
    : TypedReduction({.name          = "modern.atomic",
                      .family        = "modern",
                      .source        = "Lei Mao, CUDA Reduction: Large Array Reduce Sum (atomics); CUDA Guide ticket",
                      .idea          = "one launch: each block atomically folds into one word; last block publishes",
                      .kinds         = {Kind::full},
                      .determinism = arrival_order_float_sums,
                      .unordered_partials = partials_in_arrival_order,
                      .needs              = {.optional = {Feature::l2_cache_hints}}})
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const
  {
    return 2 * sizeof(AccumulatorWord<T, ReduceOp>); // accumulator, then the ticket counter
  }

  template <class T, class ReduceOp> Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    // Large inputs take larger blocks (modern_shape.cuh says why).
    bool large = false;
    REDU_TRY(takes_large_blocks(p.n, sizeof(T), large));
    return with_input_load<T>(p.n, [&](auto evict_first) { // the input's load form: grid_shape.cuh
      constexpr bool EvictFirst = decltype(evict_first)::value;
      return large ? launch<large_input_threads, T, ReduceOp, EvictFirst>(p, ws, stream)
                   : launch<block_threads, T, ReduceOp, EvictFirst>(p, ws, stream);
    });
  }

private:
  template <int Threads, class T, class ReduceOp, bool EvictFirst>
  static Status launch(const Problem& p, Workspace ws, cudaStream_t stream)
  {
    constexpr auto kernel = atomic_finish<Threads, T, ReduceOp, EvictFirst>;
    LaunchShape shape;
    GridRule rule;
    REDU_TRY(grid_rule(rule));
    REDU_TRY((grid_shape<kernel, Threads, unroll, T>(p.n, rule, shape)));
    auto* accumulator = static_cast<AccumulatorWord<T, ReduceOp>*>(ws.data);
    kernel<<<shape.blocks, Threads, 0, stream>>>(static_cast<const T*>(p.input), p.n, shape.tiles_per_block,
                                                 static_cast<T*>(p.output), accumulator,
                                                 reinterpret_cast<unsigned*>(accumulator + 1), ReduceOp{});
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }
};

REDU_REGISTER(AtomicFinish);

} // namespace
} // namespace redu::modern
