// Device-side operators. Every kernel is templated on one of these, so sum/min/max share code.
// Identities follow cub::DeviceReduce / DeviceSegmentedReduce: 0, numeric max, numeric lowest.
#pragma once

#include "problem.hpp"

#include <cuda/std/limits>

namespace redu
{

struct SumOp
{
  static constexpr Op id = Op::sum;
  template <class T>
  __host__ __device__ static constexpr T identity()
  {
    return T(0);
  }
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const
  {
    return a + b;
  }
};

struct MinOp
{
  static constexpr Op id = Op::min;
  template <class T>
  __host__ __device__ static constexpr T identity()
  {
    return ::cuda::std::numeric_limits<T>::max();
  }
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const
  {
    return (b < a) ? b : a;
  }
};

struct MaxOp
{
  static constexpr Op id = Op::max;
  template <class T>
  __host__ __device__ static constexpr T identity()
  {
    return ::cuda::std::numeric_limits<T>::lowest();
  }
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const
  {
    return (a < b) ? b : a;
  }
};

} // namespace redu
