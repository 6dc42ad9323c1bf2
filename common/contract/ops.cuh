// Device-side operators. Every kernel is templated on one of these, so sum/min/max share code.
// Identities are the operators' neutral elements (problem.hpp): 0; for min the largest value of the
// type (+inf for floats), for max the smallest (-inf for floats). CUB seeds Min/Max with +-FLT_MAX
// instead, which is not neutral: min(FLT_MAX, +inf) is FLT_MAX.
#pragma once

#include "common/contract/problem.hpp"

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
    if constexpr (::cuda::std::numeric_limits<T>::has_infinity)
    {
      return ::cuda::std::numeric_limits<T>::infinity();
    }
    else
    {
      return ::cuda::std::numeric_limits<T>::max();
    }
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
    if constexpr (::cuda::std::numeric_limits<T>::has_infinity)
    {
      return -::cuda::std::numeric_limits<T>::infinity();
    }
    else
    {
      return ::cuda::std::numeric_limits<T>::lowest();
    }
  }
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const
  {
    return (a < b) ? b : a;
  }
};

// x -> x * x, then +: what cub::DeviceReduce::TransformReduce and thrust::transform_reduce compute.
struct SumSquaresOp
{
  static constexpr Op id = Op::sum_squares;
  template <class T>
  __host__ __device__ static constexpr T identity()
  {
    return T(0);
  }
  template <class T>
  __host__ __device__ static T transform(const T& x)
  {
    return x * x;
  }
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const
  {
    return a + b;
  }
};

// Tags for the index-returning reductions; their combine step lives with the implementation
// (cub::ArgMin / cub::ArgMax for the CUB baseline). Identities are those of min and max.
struct ArgMinOp
{
  static constexpr Op id = Op::argmin;
  template <class T>
  __host__ __device__ static constexpr T identity()
  {
    return MinOp::identity<T>();
  }
};

struct ArgMaxOp
{
  static constexpr Op id = Op::argmax;
  template <class T>
  __host__ __device__ static constexpr T identity()
  {
    return MaxOp::identity<T>();
  }
};

} // namespace redu
