// moderngpu 2.0's reduce (Sean Baxter), as described in "GPU Programming - Reduce" (seed 003) and
// written in moderngpu's kernel_reduce.hxx, cta_reduce.hxx and intrinsics.hxx. Kept in a header so that
// the legacy exhibit (legacy/published_shfl_op.cu) can run the same kernel with the published operator
// mapping; 01_nt_vt_reduce.cu registers it.
#pragma once

#include "common/contract/ops.cuh"
#include "common/contract/status.hpp"

#include <cstdint>
#include <cuda_runtime.h>

namespace redu::moderngpu
{

constexpr int warp_size = 32;

// moderngpu's strided_iterate: call f(i, j) for value i of this thread, j = nt * i + tid its index in
// the tile; a full tile skips the bounds checks altogether.
template <int NT, int VT, class F> __device__ __forceinline__ void strided_iterate(F f, int tid, int count)
{
  if (count >= NT * VT)
  {
#pragma unroll
    for (int i = 0; i < VT; ++i)
    {
      f(i, NT * i + tid);
    }
  }
  else
  {
#pragma unroll
    for (int i = 0; i < VT; ++i)
    {
      const int j = NT * i + tid;
      if (j < count)
      {
        f(i, j);
      }
    }
  }
}

// The fused shuffle-plus-operator of intrinsics.hxx (SHFL_OP_MACRO): shfl.sync.down returns the value
// of lane + offset and a predicate that is false where that lane lies past the end of the warp; the
// operator is applied under the predicate, so out-of-range lanes keep their value without a separate
// compare and select. c = 0x1f is the clamp for a full 32-lane segment. Called from whole warps only,
// hence the constant member mask (the published version predates the _sync shuffles; its later form
// passes __activemask(), which is not a convergence guarantee). One overload per (type, operator);
// 64-bit types move as two 32-bit shuffles, the predicate taken from the low half.
#define REDU_MGPU_SHFL_DOWN_OP_32(c_type, reg, ptx_type, ptx_op, op_type)                                              \
  __device__ __forceinline__ c_type shfl_down_op(c_type x, int offset, op_type)                                        \
  {                                                                                                                    \
    c_type result;                                                                                                     \
    asm volatile("{\n\t.reg ." #ptx_type " r0;\n\t.reg .pred p;\n\t"                                                   \
                 "shfl.sync.down.b32 r0|p, %1, %2, 0x1f, 0xffffffff;\n\t"                                              \
                 "@p " #ptx_op "." #ptx_type " r0, r0, %1;\n\t"                                                        \
                 "mov." #ptx_type " %0, r0;\n\t}"                                                                      \
                 : "=" #reg(result)                                                                                    \
                 : #reg(x), "r"(offset));                                                                              \
    return result;                                                                                                     \
  }

#define REDU_MGPU_SHFL_DOWN_OP_64(c_type, reg, ptx_type, ptx_op, op_type)                                              \
  __device__ __forceinline__ c_type shfl_down_op(c_type x, int offset, op_type)                                        \
  {                                                                                                                    \
    c_type result;                                                                                                     \
    asm volatile("{\n\t.reg ." #ptx_type " r0;\n\t.reg .u32 lo;\n\t.reg .u32 hi;\n\t.reg .pred p;\n\t"                 \
                 "mov.b64 {lo, hi}, %1;\n\t"                                                                           \
                 "shfl.sync.down.b32 lo|p, lo, %2, 0x1f, 0xffffffff;\n\t"                                              \
                 "shfl.sync.down.b32 hi, hi, %2, 0x1f, 0xffffffff;\n\t"                                                \
                 "mov.b64 r0, {lo, hi};\n\t"                                                                           \
                 "@p " #ptx_op "." #ptx_type " r0, r0, %1;\n\t"                                                        \
                 "mov." #ptx_type " %0, r0;\n\t}"                                                                      \
                 : "=" #reg(result)                                                                                    \
                 : #reg(x), "r"(offset));                                                                              \
    return result;                                                                                                     \
  }

// The published table maps float minimum_t to max (seed README, "known traps"); here min is min.
REDU_MGPU_SHFL_DOWN_OP_32(std::int32_t, r, s32, add, SumOp)
REDU_MGPU_SHFL_DOWN_OP_32(std::int32_t, r, s32, min, MinOp)
REDU_MGPU_SHFL_DOWN_OP_32(std::int32_t, r, s32, max, MaxOp)
REDU_MGPU_SHFL_DOWN_OP_32(float, f, f32, add, SumOp)
REDU_MGPU_SHFL_DOWN_OP_32(float, f, f32, min, MinOp)
REDU_MGPU_SHFL_DOWN_OP_32(float, f, f32, max, MaxOp)
REDU_MGPU_SHFL_DOWN_OP_64(std::int64_t, l, s64, add, SumOp)
REDU_MGPU_SHFL_DOWN_OP_64(std::int64_t, l, s64, min, MinOp)
REDU_MGPU_SHFL_DOWN_OP_64(std::int64_t, l, s64, max, MaxOp)
REDU_MGPU_SHFL_DOWN_OP_64(double, d, f64, add, SumOp)
REDU_MGPU_SHFL_DOWN_OP_64(double, d, f64, min, MinOp)
REDU_MGPU_SHFL_DOWN_OP_64(double, d, f64, max, MaxOp)

// cta_reduce_t (the shuffle path): every thread stores its value; the first warp folds the NT / 32
// values of its lane column (register blocking again), then reduces across the warp. A full warp takes
// the fused shuffle-plus-op; a partial one (fewer than 32 valid values) shuffles and tests the count.
// `count` is how many threads hold a value; the result is valid in thread 0 only (all_return = false,
// which saves the broadcast). The unqualified shfl_down_op call lets an operator type bring its own
// fused shuffle (the legacy exhibit does).
template <int NT, class T, class ReduceOp> __device__ __forceinline__ T cta_reduce(int tid, T x, int count, ReduceOp op)
{
  static_assert(NT % warp_size == 0, "cta_reduce requires whole warps");
  __shared__ T data[NT];
  data[tid] = x;
  __syncthreads();

  if (tid < warp_size)
  {
    strided_iterate<warp_size, NT / warp_size>(
        [&](int i, int j) {
          if (i > 0)
          {
            x = op(x, data[j]);
          }
        },
        tid, count);

    if (count >= warp_size)
    {
#pragma unroll
      for (int offset = 1; offset < warp_size; offset *= 2)
      {
        x = shfl_down_op(x, offset, op);
      }
    }
    else
    {
#pragma unroll
      for (int offset = 1; offset < warp_size; offset *= 2)
      {
        const T y = __shfl_down_sync(0xffffffffu, x, offset);
        if (tid + offset < count)
        {
          x = op(x, y);
        }
      }
    }
  }
  return x;
}

// One launch of moderngpu's reduce: CTA b owns the tile [b * NT * VT, (b + 1) * NT * VT) and writes
// its reduction to out[b]. The tile is loaded strided (value i of thread tid is element NT * i + tid,
// so each load instruction of a warp is coalesced), all VT loads issued before the first use, folded
// in registers (register blocking: no identity needed, the first valid value starts the fold), then
// reduced across the CTA. A CTA with an empty tile (only the single CTA of n = 0) writes the identity,
// where moderngpu leaves count 0 undefined.
template <int NT, int VT, class T, class ReduceOp>
__global__ void __launch_bounds__(NT)
    tile_reduce(const T* __restrict__ in, std::int64_t count, T* __restrict__ out, ReduceOp op)
{
  constexpr int nv         = NT * VT;
  const int tid            = threadIdx.x;
  const std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * nv;
  const int tile_count     = static_cast<int>(count - begin < nv ? count - begin : nv);
  const T* tile            = in + begin;

  T x[VT];
  strided_iterate<NT, VT>([&](int i, int j) { x[i] = tile[j]; }, tid, tile_count);

  T scalar = T(); // only read where a value was folded in: cta_reduce ignores threads past tile_count
  strided_iterate<NT, VT>([&](int i, int) { scalar = i ? op(scalar, x[i]) : x[0]; }, tid, tile_count);

  scalar = cta_reduce<NT>(tid, scalar, tile_count < NT ? tile_count : NT, op);
  if (tid == 0)
  {
    out[blockIdx.x] = tile_count > 0 ? scalar : ReduceOp::template identity<T>();
  }
}

// Launch parameters of kernel_reduce.hxx: 128 x 8 over the input, then 512 x 4 over the partials of
// the previous pass, until one CTA is left, which writes the output.
constexpr int first_nt   = 128;
constexpr int first_vt   = 8;
constexpr int partial_nt = 512;
constexpr int partial_vt = 4;

// CTAs of a pass over `count` values, tiles of `nv`; at least one, so n = 0 still writes the output.
constexpr std::int64_t num_ctas(std::int64_t count, int nv)
{
  return count <= nv ? 1 : (count + nv - 1) / nv;
}

// Partial values of every pass but the last; moderngpu allocates one array per pass, here they sit
// back to back in the workspace.
constexpr std::int64_t partial_elements(std::int64_t n)
{
  std::int64_t total = 0;
  for (std::int64_t ctas = num_ctas(n, first_nt * first_vt); ctas > 1; ctas = num_ctas(ctas, partial_nt * partial_vt))
  {
    total += ctas;
  }
  return total;
}

// Largest n: the first pass launches one CTA per 1024 elements, at most 2^31 - 1 CTAs.
constexpr std::int64_t max_n = std::int64_t{0x7fffffff} * first_nt * first_vt;

template <class T, class ReduceOp> Status reduce(const T* in, std::int64_t n, T* out, T* partials, cudaStream_t stream)
{
  std::int64_t ctas = num_ctas(n, first_nt * first_vt);
  T* dest           = ctas == 1 ? out : partials;
  tile_reduce<first_nt, first_vt><<<static_cast<unsigned>(ctas), first_nt, 0, stream>>>(in, n, dest, ReduceOp{});
  REDU_CUDA_TRY(cudaPeekAtLastError());
  while (ctas > 1)
  {
    const T* level           = dest;
    const std::int64_t count = ctas;
    ctas                     = num_ctas(count, partial_nt * partial_vt);
    dest                     = ctas == 1 ? out : dest + count;
    tile_reduce<partial_nt, partial_vt>
        <<<static_cast<unsigned>(ctas), partial_nt, 0, stream>>>(level, count, dest, ReduceOp{});
    REDU_CUDA_TRY(cudaPeekAtLastError());
  }
  return Status::success();
}

} // namespace redu::moderngpu
