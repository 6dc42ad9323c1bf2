/* Exercise: the warp-shuffle finish (Harris's reduce4, written for Volta and later).  docs/course.md, lesson 4
 *
 * Task: write the body of reduce4 below. Each of the 128 threads of a block loads two elements, 128 apart,
 * and combines them (load_pair, Harris's reduce3: given); the block reduces its 128 values in shared
 * memory while more than one warp works (strides 64 and up), then warp 0 finishes the last 64 values
 * with warp shuffles, in registers, and thread 0 writes out[blockIdx.x]. The host code at the end of
 * this file relaunches the kernel on the partials, as for harris.reduce4, the project's solution.
 *
 * The flaw of the previous step, to remove: Harris unrolled the last six steps as shared-memory updates
 * through a `volatile` pointer, without __syncthreads(), trusting the 32 threads of a warp to run in
 * lockstep (handwritten/harris/legacy/04_unroll_last_warp_volatile.cuh). Since Volta the threads of a
 * warp are scheduled independently and nothing makes one lane's store visible to another before it
 * reads: that code is a data race (compute-sanitizer's racecheck flags it, scripts/sanitize.sh).
 *
 * Hint: once one warp is left, combine sdata[tid] and sdata[tid + 32] into a register, then halve the
 * distance five times: value = op(value, __shfl_down_sync(0xffffffff, value, offset)) for offset = 16,
 * 8, 4, 2, 1. A shuffle reads another lane's register and synchronises the lanes of its mask itself, so
 * no shared memory and no barrier is needed; all 32 lanes must take part (the full mask). After the
 * loop lane 0 holds the warp's value. Compare yours with common/device/warp_reduce.cuh afterwards.
 *
 * Done: set kernel_written = true. Until then every call is refused with a message naming this file.
 * Test: ./build-student/tests/reduce_tests --gtest_filter='*exercise_reduce4*'
 * Time: ./build-student/bench/reduce_bench --impl=exercise.reduce4,harris.reduce4,cub.device_reduce --types=f32 --ops=sum
 */
#include "exercises/exercise.cuh"
#include "handwritten/harris/03_first_add_during_load.cuh"

namespace redu::exercise
{
namespace
{

using harris::load_pair;    // two elements per thread, blockDim.x apart, combined; the identity past n
using harris::shared_array; // the block's shared memory as T*: blockDim.x elements, sized at launch

// ---- TODO: your code begins here ----
constexpr bool kernel_written = true; // set to true once reduce4 below is written

// The last warp's five steps by shuffles: every lane passes its value, lane 0 ends with the warp's.
template <class T, class ReduceOp> __device__ __forceinline__ T warp_reduce_down(T value, ReduceOp op)
{
  for (int offset = 16; offset > 0; offset /= 2)
  {
    value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
  }
  return value;
}

// 2 * blockDim.x elements of `in` per block -> one partial per block in `out`. Launched with 128
// threads per block and 128 elements of shared memory (shared_array<T>()).
template <class T, class ReduceOp>
__global__ void reduce4(const T* __restrict__ in, T* __restrict__ out, std::int64_t n, ReduceOp op)
{
  T* sdata               = shared_array<T>();
  const unsigned int tid = threadIdx.x;
  sdata[tid]             = load_pair(in, n, blockDim.x, op);
  __syncthreads();

  // Shared memory and barriers while more than one warp works.
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1)
  {
    if (tid < s)
    {
      sdata[tid] = op(sdata[tid], sdata[tid + s]);
    }
    __syncthreads();
  }

  // One warp left: its 64 values into 32 registers, then shuffles.
  if (tid < 32)
  {
    const T value = warp_reduce_down(op(sdata[tid], sdata[tid + 32]), op);
    if (tid == 0)
    {
      out[blockIdx.x] = value;
    }
  }
}
// ---- TODO: your code ends here ----

// Harris's shape for the steps that add during the load: 128 threads, two elements per thread.
constexpr harris::PassShape shape = {harris::harris_block_threads, 2 * harris::harris_block_threads,
                                     harris::max_grid_blocks};

class WarpShuffleFinish : public Exercise<WarpShuffleFinish, harris::HarrisTypes>
{
public:
  WarpShuffleFinish()
    : Exercise({.name   = "exercise.reduce4",
                .source = "course exercise: Harris 2007, Reduction #5, with shuffles (solution: harris.reduce4)",
                .idea   = "the student's last warp: 64 partials into registers, five shuffle steps, no volatile",
                .kinds  = {Kind::full},
                .max_n  = harris::max_n_of(shape)},
               "exercises/02_warp_shuffle_finish.cu", kernel_written)
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem& p) const
  {
    return harris::multi_pass_workspace_bytes<T>(shape, p.n);
  }

  template <class T, class ReduceOp> Status launch(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    return harris::multi_pass_reduce<T, ReduceOp>(shape, reduce4<T, ReduceOp>, static_cast<const T*>(p.input), p.n,
                                                  static_cast<T*>(p.output), ws, stream);
  }
};

REDU_REGISTER(WarpShuffleFinish);

} // namespace
} // namespace redu::exercise
