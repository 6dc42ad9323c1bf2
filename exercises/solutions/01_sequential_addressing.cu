/* Exercise: sequential addressing (Harris's reduce2).                   docs/course.md, lesson 1
 *
 * Task: write the body of reduce2 below. One block of 128 threads loads its 128 elements into shared
 * memory, reduces them to one value as a tree, and thread 0 writes it to out[blockIdx.x]. The host code
 * at the end of this file relaunches the kernel on the partials until one value is left
 * (handwritten/harris/multi_pass_driver.cuh), exactly as for harris.reduce2, the project's solution.
 *
 * The flaw of the previous step, to remove: in reduce1 (handwritten/harris/01_interleaved_strided_index.cuh)
 * thread k combines sdata[2*s*k] and sdata[2*s*k + s]. The threads of a warp touch words 2s apart, so
 * at s = 1 two of them share each bank, at s = 2 four, and so on: bank conflicts serialise the accesses.
 *
 * Hint: reverse the tree. Start at s = blockDim.x / 2 and halve s each step; thread tid < s combines
 * sdata[tid] and sdata[tid + s], so a warp touches 32 consecutive words, one per bank. Keep a
 * __syncthreads() after the load and after every step. Past the end of the input, load the operator's
 * identity (ReduceOp::template identity<T>()), and index the input with 64 bits (n may exceed 2^31).
 *
 * Done: set kernel_written = true. Until then every call is refused with a message naming this file.
 * Test: ./build-student/tests/reduce_tests --gtest_filter='*exercise_reduce2*'
 * Time: ./build-student/bench/reduce_bench --impl=exercise.reduce2,harris.reduce2,cub.device_reduce --types=f32 --ops=sum
 */
#include "exercises/exercise.cuh"
#include "handwritten/harris/multi_pass_driver.cuh"

namespace redu::exercise
{
namespace
{

using harris::shared_array; // the block's shared memory as T*: blockDim.x elements, sized at launch

// ---- TODO: your code begins here ----
constexpr bool kernel_written = true; // set to true once reduce2 below is written

// n elements of `in` -> one partial per block in `out`. Launched with 128 threads per block and 128
// elements of shared memory (shared_array<T>()).
template <class T, class ReduceOp>
__global__ void reduce2(const T* __restrict__ in, T* __restrict__ out, std::int64_t n, ReduceOp op)
{
  T* sdata               = shared_array<T>();
  const unsigned int tid = threadIdx.x;
  const std::int64_t i   = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + tid;
  sdata[tid]             = i < n ? in[i] : ReduceOp::template identity<T>();
  __syncthreads();

  // Stride s: thread tid < s adds the word s above it. A warp's 32 threads touch 32 consecutive words,
  // one per bank, and the working threads stay packed in the lowest warps.
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1)
  {
    if (tid < s)
    {
      sdata[tid] = op(sdata[tid], sdata[tid + s]);
    }
    __syncthreads();
  }

  if (tid == 0)
  {
    out[blockIdx.x] = sdata[0];
  }
}
// ---- TODO: your code ends here ----

// Harris's shape: 128 threads, one element per thread, any number of blocks.
constexpr harris::PassShape shape = {harris::harris_block_threads, harris::harris_block_threads,
                                     harris::max_grid_blocks};

class SequentialAddressing : public Exercise<SequentialAddressing, harris::HarrisTypes>
{
public:
  SequentialAddressing()
    : Exercise({.name   = "exercise.reduce2",
                .source = "course exercise: Harris 2007, Reduction #3 (solution: harris.reduce2)",
                .idea   = "the student's sequential addressing: tid < s adds tid + s, conflict-free",
                .kinds  = {Kind::full},
                .max_n  = harris::max_n_of(shape)},
               "exercises/01_sequential_addressing.cu", kernel_written)
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem& p) const
  {
    return harris::multi_pass_workspace_bytes<T>(shape, p.n);
  }

  template <class T, class ReduceOp> Status launch(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    return harris::multi_pass_reduce<T, ReduceOp>(shape, reduce2<T, ReduceOp>, static_cast<const T*>(p.input), p.n,
                                                  static_cast<T*>(p.output), ws, stream);
  }
};

REDU_REGISTER(SequentialAddressing);

} // namespace
} // namespace redu::exercise
