// What one bf16 or f16 element contributes to a float sum through CUB: itself widened (exact), squared
// in float for sum_squares. The transform of the halves baselines' TransformReduce and of their
// segmented transform iterator.
#pragma once

#include "common/contract/ops.cuh"

namespace redu
{

template <class ReduceOp> struct WidenHalf
{
  template <class T> __host__ __device__ float operator()(const T& x) const
  {
    const float f = static_cast<float>(x);
    return ReduceOp::id == Op::sum_squares ? f * f : f;
  }
};

} // namespace redu
