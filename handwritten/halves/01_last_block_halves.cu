// Halves, lesson 1: bf16 and f16 full arrays in one launch, folded in float, finished by the last block.
//
// Idea: modern.last_block (handwritten/modern/03_last_block_finish.cu) with the element widened on
// load. Its launch shape is reused as it is, constant for constant, so the shape holds the same bytes in
// flight (8 packs of 16 bytes per thread) and the same tiles in bytes: any gap between this kernel's
// fraction of the floor and the f32 kernel's is the widening, not the shape (DESIGN.md).
// Sum and sum_squares accumulate in float and write a float (output_dtype in problem.hpp): a half
// accumulator would stop growing once the sum is 2^8 (bf16) or 2^11 (f16) times the addends. Min and max
// compare the widened values (exact) and write the winner back in the input type, also exact.
// Deterministic: the partials are combined in index order (fixed_tree: run_to_run for every operator,
// as for f32; the tree follows the launch shape, which follows the GPU).
// Requirements: any n (64-bit), input aligned to 2 bytes; workspace zero-filled once by the caller (the
// ticket is left at zero after every call).
#include "common/contract/typed_reduction.cuh"
#include "common/device/grid_ticket.cuh"
#include "handwritten/halves/fold.cuh"
#include "handwritten/modern/grid_shape.cuh"

namespace redu::halves
{
namespace
{

using modern::block_threads;
using modern::unroll;

// The ticket sits in the first 16 bytes of the workspace, so the float partials after it stay 16-byte
// aligned and the finishing block reads them with vector loads.
constexpr std::size_t partials_offset = 16;

// Capped at modern.atomic's occupancy (modern_shape.cuh, min_resident_threads): uncapped, 74-80 registers.
// The input's load form is a template argument, as in the modern family (InputLoad, vector_load.cuh).
template <class T, class ReduceOp, bool EvictFirst>
__global__ void __launch_bounds__(block_threads, modern::min_resident_threads / block_threads)
    last_block_halves(const T* __restrict__ in, std::int64_t n, std::int64_t tiles_per_block,
                      Output<T, ReduceOp>* __restrict__ out, float* partials, unsigned* ticket)
{
  const ReduceOp op{};
  const float mine = fold_half_tiles<block_threads, unroll>(in, n, blockIdx.x, tiles_per_block,
                                                            InputLoad<EvictFirst>{}, op);
  float value      = block_reduce<block_threads>(mine, op);
  if (gridDim.x > 1)
  {
    if (!block_arrives_last(ticket, gridDim.x, [&] { partials[blockIdx.x] = value; }))
    {
      return;
    }
    // Float partials written in this launch: the coherent path, f32 packs, combined in index order.
    // (sum_squares partials are already squares: its operator only adds them.)
    value = block_fold_all<block_threads, unroll>(partials, gridDim.x, CoherentLoad{}, op);
    if (threadIdx.x == 0)
    {
      *ticket = 0;
    }
  }
  if (threadIdx.x == 0)
  {
    *out = static_cast<Output<T, ReduceOp>>(value); // float, or a min/max narrowed back: exact
  }
}

class LastBlockHalves
    : public TypedReduction<LastBlockHalves, TypeList<__nv_bfloat16, __half>, OpList<SumOp, SumSquaresOp, MinOp, MaxOp>>
{
public:
  LastBlockHalves()
    : TypedReduction({.name   = "halves.sum",
                      .family = "halves",
                      .source = "modern.last_block with 8 halves per 16-byte load widened to float",
                      .idea   = "bf16/f16 read at f32's bytes per second: twice the elements, float accumulation",
                      .kinds  = {Kind::full},
                      .needs  = {.optional = {Feature::l2_cache_hints}}})
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const
  {
    return partials_offset + modern::max_grid * sizeof(float);
  }

  template <class T, class ReduceOp> Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    return modern::with_input_load<T>(p.n, [&](auto evict_first) { // grid_shape.cuh
      constexpr auto kernel = last_block_halves<T, ReduceOp, decltype(evict_first)::value>;
      modern::LaunchShape shape;
      modern::GridRule rule;
      REDU_TRY(modern::grid_rule(rule)); // the GPU's tuned values, as modern.last_block's
      REDU_TRY((modern::grid_shape<kernel, block_threads, unroll, T>(p.n, rule, shape)));
      auto* base = static_cast<unsigned char*>(ws.data);
      kernel<<<shape.blocks, block_threads, 0, stream>>>(
          static_cast<const T*>(p.input), p.n, shape.tiles_per_block, static_cast<Output<T, ReduceOp>*>(p.output),
          reinterpret_cast<float*>(base + partials_offset), reinterpret_cast<unsigned*>(base));
      REDU_CUDA_TRY(cudaPeekAtLastError());
      return Status::success();
    });
  }
};

REDU_REGISTER(LastBlockHalves);

} // namespace
} // namespace redu::halves
