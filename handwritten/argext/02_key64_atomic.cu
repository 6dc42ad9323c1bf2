// Argext family, lesson 2: argmin/argmax of a whole array as one 64-bit key, finished with atomicMax.
//
// Idea: pack (value, index) into one unsigned 64-bit key whose order is the contract's rule
// (arg_key64.cuh), so the whole reduction is a max: each thread keeps its largest key, the block takes
// the max of its threads' keys (one 64-bit shuffle per step), and thread 0 folds it into one word of the
// workspace with a single atomicMax. A ticket elects the last block, which reads and clears the word in
// one atomicExch, decodes the index and the value (a zero is re-read from the input at that index: the
// key holds the canonical zero, the output needs the element's own sign), and sets the ticket back to 0.
// Against lesson 1 (pairs): no partial array and no finishing fold, one 8-byte atomic per block instead
// of a 12-byte store and a 12-byte read; the price is 32-bit types only and n < 2^32.
// Bytes: the input once, 8 bytes of atomics per block (and one element re-read when the extreme is 0).
// Deterministic: a max is order-free, and the key order is total (value, then index).
// The contract's edges: ties to the smaller index (the complemented index in the low word); +0/-0 tie
// and the first one's own value is written (re-read); an empty array leaves the word 0 -> identity and
// -1; n >= 2^32 is refused by validate() (max_n), because the index must fit 32 bits and ~index != 0.
// Shape: blocks of 256 threads, of 512 for inputs of at least twice the L2 (argext_shape.cuh says why).
// Requirements: workspace zero-filled once by the caller (word and ticket); calls stream-ordered.
// Source: the order-preserving key of handwritten/modern/02_atomic_finish.cu, widened by the index (the
// packed 64-bit argmax of GPU top-k/sampling kernels).
#include "common/contract/typed_reduction.cuh"
#include "common/device/grid_ticket.cuh"
#include "handwritten/argext/arg_fold.cuh"
#include "handwritten/argext/arg_key64.cuh"
#include "handwritten/argext/argext_shape.cuh"

namespace redu::argext
{
namespace
{

template <int Threads, class T, class ArgOp>
__global__ void __launch_bounds__(Threads)
    key64_atomic(const T* __restrict__ in, std::int64_t n, std::int64_t chunk, T* __restrict__ out,
                 std::int64_t* __restrict__ out_index, unsigned long long* word, unsigned* ticket, bool evict_first)
{
  const std::int64_t begin = blockIdx.x * chunk;
  const std::int64_t end   = begin + chunk < n ? begin + chunk : n;
  Key64Best<ArgOp, T> acc;
  fold_range_arg<Threads, unroll>(in, begin, end, 0, threadIdx.x, StreamingLoad(evict_first), acc);
  unsigned long long key = block_max_key<Threads>(acc.best);
  if (threadIdx.x != 0)
  {
    return;
  }
  if (gridDim.x > 1)
  {
    atomicMax(word, key);
    if (!last_arrival(ticket, gridDim.x)) // releases this block's atomic; the winner acquires all of them
    {
      return;
    }
    key     = atomicExch(word, 0ull); // read and clear in one step: no other block touches it any more
    *ticket = 0;
  }
  write_key64_result<ArgOp>(key, in, out, out_index); // the element's own value: -0 stays -0
}

class Key64Atomic : public TypedReduction<Key64Atomic, Key64Types, OpList<ArgMinOp, ArgMaxOp>>
{
public:
  Key64Atomic()
    : TypedReduction(
          {.name   = "argext.key64",
           .family = "argext",
           .source = "order-preserving key (modern.atomic) widened to value<<32 | ~index; one atomicMax per block",
           .idea   = "one 64-bit key per element: a max picks value and first index; blocks meet in one atomicMax",
           .kinds  = {Kind::full},
           .max_n  = key64_max_n,
           .needs  = {.optional = {Feature::l2_cache_hints}}})
  {}

  template <class T, class ArgOp> std::size_t workspace_bytes(const Problem&) const
  {
    return 2 * sizeof(unsigned long long); // the word, then the ticket
  }

  template <class T, class ArgOp> Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    // Inputs of at least twice the L2 take larger blocks (argext_shape.cuh says why).
    bool large = false;
    REDU_TRY(takes_large_blocks<T>(p.n, large));
    if (large)
    {
      return launch<large_input_threads, T, ArgOp>(p, ws, stream);
    }
    return launch<block_threads, T, ArgOp>(p, ws, stream);
  }

private:
  template <int Threads, class T, class ArgOp> Status launch(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    constexpr auto kernel = key64_atomic<Threads, T, ArgOp>;
    FullShape shape;
    REDU_TRY((full_launch_shape<kernel, T, Threads>(p.n, shape)));
    auto* word = static_cast<unsigned long long*>(ws.data);
    kernel<<<shape.blocks, Threads, 0, stream>>>(static_cast<const T*>(p.input), p.n, shape.chunk,
                                                 static_cast<T*>(p.output), p.indices, word,
                                                 reinterpret_cast<unsigned*>(word + 1), shape.evict_first);
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }
};

REDU_REGISTER(Key64Atomic);

} // namespace
} // namespace redu::argext
