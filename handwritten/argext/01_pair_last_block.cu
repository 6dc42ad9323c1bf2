// Argext family, lesson 1: argmin/argmax of a whole array as (value, index) pairs, in one launch.
//
// Idea: every thread folds its share of the array into one pair (arg_fold.cuh: 16-byte loads, the
// index computed from the load's position, never loaded), the block reduces its threads' pairs
// (arg_pair.cuh: two shuffles per step), and thread 0 stores the block's pair in the workspace. A ticket
// (last_arrival in common/device/grid_ticket.cuh) elects the last block to arrive; it folds the blocks'
// pairs in a fixed order, writes the value and the index, and sets the ticket back to 0.
// Bytes: the input once (4 or 8 bytes per element), plus 12 or 16 bytes per block written and read back
// by the last block: at most ~17k blocks (argext_shape.cuh), ~200 KiB against 1 GiB at 2^28 floats.
// Deterministic: the pair order is total (value, then index), so the result does not depend on which
// block finishes last, nor on the grid shape.
// The contract's edges: ties go to the smaller index in every comparison; +0 and -0 compare equal and
// the winner carries its own value, so the first zero is written with its sign; an empty array leaves
// the pair at (identity, none) -> identity and -1; any n (64-bit indices).
// Requirements: workspace zero-filled once by the caller (the ticket); calls that share it stream-ordered.
// Source: the single-launch finish of the CUDA Programming Guide's threadFenceReduction sample
// (handwritten/modern/03_last_block_finish.cu), carrying CUB's ArgMin/ArgMax (value, index) pair.
#include "common/contract/typed_reduction.cuh"
#include "common/device/grid_ticket.cuh"
#include "handwritten/argext/arg_fold.cuh"
#include "handwritten/argext/argext_shape.cuh"

namespace redu::argext
{
namespace
{

// Workspace: the ticket, then max_grid indices, then max_grid values (indices first: 8-byte aligned
// whatever T is).
constexpr std::size_t indices_offset = 16;

template <class T, class ArgOp>
__global__ void __launch_bounds__(block_threads)
    pair_last_block(const T* __restrict__ in, std::int64_t n, std::int64_t chunk, T* __restrict__ out,
                    std::int64_t* __restrict__ out_index, unsigned* ticket, std::int64_t* partial_index,
                    T* partial_value, bool evict_first)
{
  const std::int64_t begin = blockIdx.x * chunk;
  const std::int64_t end   = begin + chunk < n ? begin + chunk : n;
  ArgPair<T> best =
      fold_range_pair<block_threads, unroll, ArgOp>(in, begin, end, 0, threadIdx.x, StreamingLoad(evict_first));
  best = block_best<block_threads, ArgOp>(best);
  if (gridDim.x == 1)
  {
    if (threadIdx.x == 0)
    {
      write_arg_result(best, out, out_index);
    }
    return;
  }

  const bool last = block_arrives_last(ticket, gridDim.x, [&] {
    partial_index[blockIdx.x] = best.index;
    partial_value[blockIdx.x] = best.value;
  });
  if (!last)
  {
    return;
  }
  // Pairs written in this launch: read at L2 (__ldcg), never through the read-only path.
  best = no_element<ArgOp, T>();
  for (unsigned b = threadIdx.x; b < gridDim.x; b += block_threads)
  {
    best = best_of<ArgOp>(best, ArgPair<T>{__ldcg(partial_value + b), __ldcg(partial_index + b)});
  }
  best = block_best<block_threads, ArgOp>(best);
  if (threadIdx.x == 0)
  {
    write_arg_result(best, out, out_index);
    *ticket = 0;
  }
}

class PairLastBlock : public TypedReduction<PairLastBlock, AllTypes, OpList<ArgMinOp, ArgMaxOp>>
{
public:
  PairLastBlock()
    : TypedReduction(
          {.name   = "argext.pair",
           .family = "argext",
           .source = "CUDA Guide threadFenceReduction finish, carrying CUB ArgMin/ArgMax's (value, index) pair",
           .idea   = "one launch: each thread keeps a (value, index) pair, blocks leave pairs, last block picks",
           .kinds  = {Kind::full},
           .needs  = {.optional = {Feature::l2_cache_hints}}})
  {}

  template <class T, class ArgOp> std::size_t workspace_bytes(const Problem&) const
  {
    return indices_offset + max_grid * (sizeof(std::int64_t) + sizeof(T));
  }

  template <class T, class ArgOp> Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    constexpr auto kernel = pair_last_block<T, ArgOp>;
    FullShape shape;
    REDU_TRY((full_launch_shape<kernel, T>(p.n, shape)));
    auto* base          = static_cast<unsigned char*>(ws.data);
    auto* partial_index = reinterpret_cast<std::int64_t*>(base + indices_offset);
    kernel<<<shape.blocks, block_threads, 0, stream>>>(
        static_cast<const T*>(p.input), p.n, shape.chunk, static_cast<T*>(p.output), p.indices,
        reinterpret_cast<unsigned*>(base), partial_index, reinterpret_cast<T*>(partial_index + max_grid),
        shape.evict_first);
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }
};

REDU_REGISTER(PairLastBlock);

} // namespace
} // namespace redu::argext
