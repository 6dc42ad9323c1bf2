// Modern family, lesson 3: one launch, finished by whichever block is last.
//
// Idea: every block writes its partial, then takes a ticket from a counter in the workspace with one
// acq_rel atomicAdd (the sample's __threadfence() + atomicInc, with the fences as the atomic's memory
// order). The block that draws the last ticket knows every other partial is visible to it, so it alone
// reduces the partials (coherent L2 loads, fixed order) and writes the result, then sets the counter
// back to zero for the next call.
// Flaw removed (vs lesson 1): the second launch. For small inputs the launch latency dominates, so one
// launch instead of two is most of the gain; for large ones the finish overlaps the slowest blocks.
// Flaw removed (vs lesson 2): float sums are deterministic again: the partials are combined in index
// order, not in the order the blocks happen to finish.
// Requirements: any n (64-bit), input aligned to its element size; workspace zero-filled once by the
// caller (the counter is left at zero after every call, as common/contract/problem.hpp requires); calls that
// share a workspace must be stream-ordered. A grid of one block skips the ticket altogether.
// Source: the threadFenceReduction sample of the CUDA C++ Programming Guide (memory fence functions),
// with the tile fold of lesson 1.
#include "common/contract/typed_reduction.cuh"
#include "common/device/grid_ticket.cuh"
#include "common/device/range_fold.cuh"
#include "handwritten/modern/grid_shape.cuh"

namespace redu::modern
{
namespace
{

// The counter sits in the first 16 bytes of the workspace, so the partials after it stay 16-byte
// aligned and the finishing block reads them with vector loads.
constexpr std::size_t partials_offset = 16;

template <class T, class ReduceOp, bool EvictFirst>
__global__ void __launch_bounds__(block_threads)
    last_block_finish(const T* __restrict__ in, std::int64_t n, std::int64_t tiles_per_block,
                      T* __restrict__ out, T* partials, unsigned* ticket, ReduceOp op)
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

  __shared__ bool is_last;
  if (threadIdx.x == 0)
  {
    partials[blockIdx.x] = value;
    is_last              = last_arrival(ticket, gridDim.x); // release this partial; the winner acquires all of them
  }
  __syncthreads(); // also separates the two uses of block_reduce's shared slots
  if (!is_last)
  {
    return;
  }
  // Partials written in this launch: the coherent path, never the read-only one.
  value = block_fold_all<block_threads, unroll>(partials, gridDim.x, CoherentLoad{}, op);
  if (threadIdx.x == 0)
  {
    *out    = value;
    *ticket = 0;
  }
}

class LastBlockFinish : public TypedReduction<LastBlockFinish>
{
public:
  LastBlockFinish()
    : TypedReduction({.name          = "modern.last_block",
                      .family        = "modern",
                      .source        = "CUDA C++ Programming Guide, memory fences (threadFenceReduction)",
                      .idea          = "one launch: partials, acq_rel atomic ticket, last block reduces them in order",
                      .kinds         = {Kind::full},
                      .needs         = {.optional = {Feature::l2_cache_hints}}})
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const
  {
    return partials_offset + max_grid * sizeof(T);
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
    constexpr auto kernel = last_block_finish<T, ReduceOp, EvictFirst>;
    LaunchShape shape;
    GridRule rule;
    REDU_TRY(grid_rule(rule));
    REDU_TRY((grid_shape<kernel, block_threads, unroll, T>(p.n, rule, shape)));
    auto* base = static_cast<unsigned char*>(ws.data);
    kernel<<<shape.blocks, block_threads, 0, stream>>>(
        static_cast<const T*>(p.input), p.n, shape.tiles_per_block, static_cast<T*>(p.output),
        reinterpret_cast<T*>(base + partials_offset), reinterpret_cast<unsigned*>(base), ReduceOp{});
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }
};

REDU_REGISTER(LastBlockFinish);

} // namespace
} // namespace redu::modern
