// Reducing a value across the lanes of a warp, or of aligned groups of lanes within it, by butterfly
// shuffles. Lesson kernels that teach this step spell it out; everything else calls this.
#pragma once

#include "common/contract/ops.cuh"

#include <cstdint>
#include <cuda_runtime.h>
#include <nv/target>
#include <type_traits>

namespace redu
{

// Folds `value` over aligned groups of `width` lanes (a power of two, at most 32) with the butterfly
// (xor) pattern: after log2(width) rounds every lane holds its group's result, so no broadcast is
// needed. Call from all 32 lanes. The width is an argument, not a template parameter, because some
// groups are only known at run time (a row's lanes in pow2_rows.cuh); a constant width unrolls into
// straight-line shuffles. Shuffles move 32-bit registers; 64-bit types are split by the intrinsic's
// overloads.
template <class T, class ReduceOp> __device__ __forceinline__ T warp_reduce(T value, ReduceOp op, int width)
{
  for (int lane_mask = width / 2; lane_mask > 0; lane_mask /= 2)
  {
    value = op(value, __shfl_xor_sync(0xffffffffu, value, lane_mask));
  }
  return value;
}

// The whole warp: every lane receives the warp's result. For 32-bit integer sums, minima and maxima one
// REDUX instruction replaces the five shuffle rounds (sm_80, Feature::warp_redux); it is exact, so the
// result is the shuffles' result, which code compiled for an older target computes instead.
template <class T, class ReduceOp> __device__ __forceinline__ T warp_reduce(T value, ReduceOp op)
{
  if constexpr (std::is_same_v<T, std::int32_t>)
  {
    if constexpr (ReduceOp::id == Op::sum)
    {
      NV_IF_TARGET(NV_PROVIDES_SM_80, (return __reduce_add_sync(0xffffffffu, value);))
    }
    else if constexpr (ReduceOp::id == Op::min)
    {
      NV_IF_TARGET(NV_PROVIDES_SM_80, (return __reduce_min_sync(0xffffffffu, value);))
    }
    else if constexpr (ReduceOp::id == Op::max)
    {
      NV_IF_TARGET(NV_PROVIDES_SM_80, (return __reduce_max_sync(0xffffffffu, value);))
    }
  }
  return warp_reduce(value, op, 32);
}

} // namespace redu
