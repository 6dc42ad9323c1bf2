/* Exercise: argmin and argmax with (value, index) pairs, in one launch.  docs/course.md, lesson 10
 *
 * Task: write the three device functions below that the kernel after them calls: better() (the order on
 * pairs), thread_best() (a thread's best pair of the input, by a grid-stride loop) and block_best() (a
 * block's best pair). The kernel, given, finishes as the last-block exercise did: every block leaves its
 * pair, and the last block to arrive picks the best of them and writes the value and its index. The
 * project's solution is argext.pair (16-byte loads, 8 in flight; handwritten/argext/01_pair_last_block.cu).
 *
 * The flaw of the previous step, to remove: a reduction of values alone (max) loses where the extreme
 * was. Finding it afterwards means a second pass over the input, searching for the first element equal to
 * the max: twice the bytes.
 *
 * The rule (the contract, docs/contract.md): the strictly more extreme value wins (greater for argmax,
 * smaller for argmin); between equal values, +0 and -0 included, the smaller index wins and carries its
 * own value, so the first zero is written with its sign. An empty input writes the identity and -1.
 * Hint: with the index in the comparison, better() is a total order, so any tree and any grid give the
 * same pair; write it out in full at every step (never "keep the first on ties": which pair comes first
 * depends on the tree). A pair crosses lanes as two shuffles, the value and the index. In block_best,
 * each warp's best goes to a __shared__ slot (a value array and an index array), then warp 0 takes the
 * slots, with no_element() for the lanes past the last warp. No_element() is the identity with index
 * `none`, the largest index, so any element, even one equal to the identity (-inf in an argmax), beats it.
 *
 * Done: set kernel_written = true. Until then every call is refused with a message naming this file.
 * Test: ./build-student/tests/reduce_tests --gtest_filter='*exercise_argmax*'
 * Time: ./build-student/bench/reduce_bench --impl=exercise.argmax,argext.pair,cub.device_reduce --types=f32 --ops=argmax
 */
#include "common/device/grid_ticket.cuh"
#include "exercises/exercise.cuh"

#include <cstdint>

namespace redu::exercise
{
namespace
{

constexpr int block_threads       = 256;
constexpr std::int64_t max_blocks = 1024; // the grid, at most: the last block folds this many pairs

inline constexpr std::int64_t none = INT64_MAX; // the index of "no element yet"

template <class T> struct Pair
{
  T value;
  std::int64_t index; // `none` for no element
};

template <class ArgOp, class T> __device__ __forceinline__ Pair<T> no_element()
{
  return {ArgOp::template identity<T>(), none};
}

// ---- TODO: your code begins here ----
constexpr bool kernel_written = false; // set to true once the three functions below are written

// True when `a` is better than `b` under ArgOp (ArgOp::id is Op::argmax or Op::argmin).
template <class ArgOp, class T> __device__ __forceinline__ bool better(const Pair<T>& a, const Pair<T>& b)
{
  return false; // the rule above
}

// This thread's best pair of in[0, n): elements thread, thread + stride, ... (stride: the grid's threads).
template <class ArgOp, class T> __device__ __forceinline__ Pair<T> thread_best(const T* __restrict__ in, std::int64_t n)
{
  return no_element<ArgOp, T>(); // a grid-stride loop over the input, keeping the better pair
}

// The block's best pair, valid in thread 0. Called by all block_threads threads; contains __syncthreads().
template <class ArgOp, class T> __device__ __forceinline__ Pair<T> block_best(Pair<T> p)
{
  return p; // each warp's best by shuffles, one shared slot per warp, then warp 0 over the slots
}
// ---- TODO: your code ends here ----

// The contract's two outputs: the winner's own value and its index, or the identity and -1 (empty input).
template <class T> __device__ __forceinline__ void write_result(const Pair<T>& p, T* value, std::int64_t* index)
{
  *value = p.value;
  *index = p.index == none ? -1 : p.index;
}

// n elements of `in` -> *out and *out_index, in one launch. `ticket` is 0 when it starts and when it
// ends; partial_index and partial_value have a place for every block.
template <class T, class ArgOp>
__global__ void __launch_bounds__(block_threads)
    pair_last_block(const T* __restrict__ in, std::int64_t n, T* __restrict__ out, std::int64_t* __restrict__ out_index,
                    unsigned* ticket, std::int64_t* partial_index, T* partial_value)
{
  Pair<T> best = block_best<ArgOp>(thread_best<ArgOp>(in, n));
  if (gridDim.x == 1)
  {
    if (threadIdx.x == 0)
    {
      write_result(best, out, out_index);
    }
    return;
  }
  // Thread 0 leaves the block's pair and takes a ticket (the last-block exercise's finish, from
  // common/device/grid_ticket.cuh); the barrier inside also separates the two calls of block_best.
  const bool last = block_arrives_last(ticket, gridDim.x, [&] {
    partial_index[blockIdx.x] = best.index;
    partial_value[blockIdx.x] = best.value;
  });
  if (!last)
  {
    return;
  }
  best = no_element<ArgOp, T>();
  for (unsigned b = threadIdx.x; b < gridDim.x; b += block_threads) // pairs written in this launch: read at L2
  {
    const Pair<T> other{__ldcg(partial_value + b), __ldcg(partial_index + b)};
    if (better<ArgOp>(other, best))
    {
      best = other;
    }
  }
  best = block_best<ArgOp>(best);
  if (threadIdx.x == 0)
  {
    write_result(best, out, out_index);
    *ticket = 0; // for the next call
  }
}

// The workspace: the ticket, then max_blocks indices, then max_blocks values (indices first: 8-byte
// aligned whatever T is).
constexpr std::size_t indices_offset = 16;

class ArgPairs : public Exercise<ArgPairs, AllTypes, OpList<ArgMinOp, ArgMaxOp>>
{
public:
  ArgPairs()
    : Exercise({.name   = "exercise.argmax",
                .source = "course exercise: CUB's ArgMin/ArgMax pair, last-block finish (solution: argext.pair)",
                .idea   = "the student's (value, index) pairs: a total order, two shuffles per step, one launch",
                .kinds  = {Kind::full}},
               "exercises/06_argmax_pairs.cu", kernel_written)
  {}

  template <class T, class ArgOp> std::size_t workspace_bytes(const Problem&) const
  {
    return indices_offset + max_blocks * (sizeof(std::int64_t) + sizeof(T));
  }

  template <class T, class ArgOp> Status launch(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    // Eight elements per thread at least, at most max_blocks blocks that loop beyond.
    constexpr std::int64_t per_block = std::int64_t{block_threads} * 8;
    const std::int64_t wanted        = (p.n + per_block - 1) / per_block;
    const auto blocks   = static_cast<unsigned>(wanted < 1 ? 1 : (wanted < max_blocks ? wanted : max_blocks));
    auto* base          = static_cast<unsigned char*>(ws.data);
    auto* partial_index = reinterpret_cast<std::int64_t*>(base + indices_offset);
    pair_last_block<T, ArgOp><<<blocks, block_threads, 0, stream>>>(
        static_cast<const T*>(p.input), p.n, static_cast<T*>(p.output), p.indices, reinterpret_cast<unsigned*>(base),
        partial_index, reinterpret_cast<T*>(partial_index + max_blocks));
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }
};

REDU_REGISTER(ArgPairs);

} // namespace
} // namespace redu::exercise
