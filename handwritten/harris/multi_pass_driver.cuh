// The host side shared by Mark Harris's seven kernels ("Optimizing Parallel Reduction in CUDA", NVIDIA, 2007):
// each kernel turns n values into one partial per block, so the driver relaunches the same kernel on the
// partials until a single block is left, as Harris's slides and the cuda-samples `reduction` program do.
//
// Partials ping-pong between two workspace buffers, because a pass cannot overwrite its own input: block b
// writes partial b while block b / elements_per_block may not yet have read element b. The first buffer holds
// the first pass's partials, the second the second pass's; every later pass writes fewer values into one of
// them again, so these two sizes are the whole workspace.
#pragma once

#include "common/contract/typed_reduction.cuh"

#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>
#include <limits>

namespace redu::harris
{

// The element types Harris's kernels are registered for (64-bit integers add nothing to the lesson).
using HarrisTypes = TypeList<std::int32_t, float, double>;

// Harris's table uses 128 threads per block for every kernel; so does this project, so the steps compare.
constexpr int harris_block_threads = 128;

// cudaDeviceProp::maxGridSize[0] on every GPU since compute capability 3.0.
constexpr std::int64_t max_grid_blocks = std::numeric_limits<std::int32_t>::max();

// Harris's kernels declare `extern __shared__` memory sized at launch (threads * sizeof(T)). One byte array
// serves every element type: declaring `extern __shared__ T sdata[]` for several T in one translation unit is
// a redeclaration error (the cuda-samples' SharedMemory<T> works around the same rule).
template <class T>
__device__ __forceinline__ T* shared_array()
{
  extern __shared__ __align__(16) unsigned char harris_shared_bytes[];
  return reinterpret_cast<T*>(harris_shared_bytes);
}

// How one pass of a kernel covers its input.
struct PassShape
{
  int block_threads;               // threads per block (a power of two, as Harris's trees require)
  std::int64_t elements_per_block; // input elements one block reads (per grid-stride round, if it loops)
  std::int64_t max_blocks;         // max_grid_blocks for one-tile-per-block kernels; a smaller cap for grid-stride
                                   // kernels, whose blocks loop over the rest
};

// Largest n a kernel of this shape handles. One tile per block: the first pass's grid must fit gridDim.x.
// Grid-stride: the index `i += blocks * elements_per_block` must not overflow int64.
constexpr std::int64_t max_n_of(const PassShape& shape)
{
  return shape.max_blocks == max_grid_blocks
           ? max_grid_blocks * shape.elements_per_block
           : std::numeric_limits<std::int64_t>::max() - shape.max_blocks * shape.elements_per_block;
}

// Blocks of one pass over `count` values; at least one, so n = 0 still writes the identity.
constexpr std::int64_t blocks_for(const PassShape& shape, std::int64_t count)
{
  const std::int64_t wanted = count / shape.elements_per_block + (count % shape.elements_per_block != 0 ? 1 : 0);
  return wanted < 1 ? 1 : (wanted < shape.max_blocks ? wanted : shape.max_blocks);
}

// Every Harris kernel has this signature: n input values -> one partial per block, tail elements -> identity.
template <class T, class ReduceOp>
using PassKernel = void (*)(const T*, T*, std::int64_t, ReduceOp);

// Exact bytes of the two ping-pong buffers; 0 when one pass suffices.
template <class T>
std::size_t multi_pass_workspace_bytes(const PassShape& shape, std::int64_t n)
{
  const std::int64_t first = blocks_for(shape, n);
  if (first == 1)
  {
    return 0;
  }
  const std::int64_t second = blocks_for(shape, first);
  return static_cast<std::size_t>(first + (second > 1 ? second : 0)) * sizeof(T);
}

// Launches `kernel` pass after pass on `stream`; the last pass (a single block) writes `out[0]`.
// Each pass has strictly fewer outputs than inputs (blocks_for(m) < m for m > 1), so the loop ends.
template <class T, class ReduceOp>
Status multi_pass_reduce(const PassShape& shape, PassKernel<T, ReduceOp> kernel, const T* in, std::int64_t n, T* out,
                         Workspace ws, cudaStream_t stream)
{
  const std::int64_t first_blocks = blocks_for(shape, n);
  const std::size_t shared_bytes  = static_cast<std::size_t>(shape.block_threads) * sizeof(T);
  const T* source                 = in;
  std::int64_t count              = n;
  for (int pass = 0;; ++pass)
  {
    const std::int64_t blocks = blocks_for(shape, count);
    T* target                 = out;
    if (blocks > 1)
    {
      // Only reached when the workspace is non-empty (first_blocks > 1).
      T* const ping = static_cast<T*>(ws.data);
      target        = pass % 2 == 0 ? ping : ping + first_blocks;
    }
    kernel<<<static_cast<unsigned int>(blocks), shape.block_threads, shared_bytes, stream>>>(source, target, count,
                                                                                             ReduceOp{});
    REDU_CUDA_TRY(cudaPeekAtLastError());
    if (blocks == 1)
    {
      return Status::success();
    }
    source = target;
    count  = blocks;
  }
}

// A registered full reduction made of one Harris kernel and the multi-pass driver. `Step` provides
//   static constexpr PassShape shape;
//   template <class T, class ReduceOp> static PassKernel<T, ReduceOp> kernel();
//   static Info info();  // everything but dtypes/ops (from the type lists) and max_n (from the shape)
// The lessons take Harris's types and every operator; the historical exhibit, float sums only.
template <class Step, class Types = HarrisTypes, class Ops = AllOps>
class MultiPassReduction : public TypedReduction<MultiPassReduction<Step, Types, Ops>, Types, Ops>
{
  using Base = TypedReduction<MultiPassReduction<Step, Types, Ops>, Types, Ops>;

public:
  MultiPassReduction()
      : Base(with_limit(Step::info()))
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem& p) const
  {
    return multi_pass_workspace_bytes<T>(Step::shape, p.n);
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    return multi_pass_reduce<T, ReduceOp>(Step::shape, Step::template kernel<T, ReduceOp>(),
                                          static_cast<const T*>(p.input), p.n, static_cast<T*>(p.output), ws, stream);
  }

private:
  static Info with_limit(Info info)
  {
    info.family = "harris";
    info.kinds  = {Kind::full};
    info.max_n  = max_n_of(Step::shape);
    return info;
  }
};

} // namespace redu::harris
