// How a group of threads folds an arbitrary range [begin, end) of an array with 16-byte loads: the
// building block of every mapping of segmented.adaptive, whatever the group (a thread, 8 lanes, a
// warp, a block).
//
// Segment starts are arbitrary element positions, so a range is split at 16-byte boundaries: a head of
// fewer than 16 / sizeof(T) elements loaded one by one, a body of whole 16-byte vectors, and a tail
// like the head. The body is where the bytes are: each thread keeps Unroll independent vector loads in
// flight before it folds them, so latency is covered by this thread's own loads and not only by
// occupancy. The order of the fold depends only on the range, its address and the group size, never on
// timing, so every mapping built from this is deterministic.
#pragma once

#include "common/contract/ops.cuh"

#include <cstdint>
#include <cuda_runtime.h>

namespace redu::segmented
{

// Sixteen bytes of T as a CUDA vector type (these have __ldg overloads): 4 x 32-bit or 2 x 64-bit.
template <class T>
struct Vector16;
template <>
struct Vector16<float>
{
  using type                 = float4;
  static constexpr int width = 4;
};
template <>
struct Vector16<double>
{
  using type                 = double2;
  static constexpr int width = 2;
};
template <>
struct Vector16<std::int32_t>
{
  using type                 = int4;
  static constexpr int width = 4;
};
template <>
struct Vector16<std::int64_t>
{
  using type                 = longlong2;
  static constexpr int width = 2;
};

template <class T>
using vector16_t = typename Vector16<T>::type;

// Every element of the vector set to `value` (the identity, for loads that fall outside the range).
template <class T>
__device__ __forceinline__ vector16_t<T> splat(T value)
{
  vector16_t<T> v;
  v.x = value;
  v.y = value;
  if constexpr (Vector16<T>::width == 4)
  {
    v.z = value;
    v.w = value;
  }
  return v;
}

template <class T, class ReduceOp>
__device__ __forceinline__ T fold_vector(const vector16_t<T>& v, ReduceOp op)
{
  if constexpr (Vector16<T>::width == 4)
  {
    return op(op(T(v.x), T(v.y)), op(T(v.z), T(v.w)));
  }
  else
  {
    return op(T(v.x), T(v.y));
  }
}

// Folds in[begin, end) with GroupSize cooperating threads; `rank` is this thread's place in the group,
// in [0, GroupSize). Returns this thread's partial: the caller combines the group's partials.
template <int GroupSize, int Unroll, class T, class ReduceOp>
__device__ __forceinline__ T fold_range(const T* __restrict__ in, std::int64_t begin, std::int64_t end, int rank,
                                        ReduceOp op)
{
  using Vec                  = vector16_t<T>;
  constexpr int width        = Vector16<T>::width;
  const T identity           = ReduceOp::template identity<T>();
  T partial                  = identity;
  const auto misaligned      = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(in + begin) % 16);
  std::int64_t head          = misaligned == 0 ? 0 : (16 - misaligned) / static_cast<std::int64_t>(sizeof(T));
  head                       = head < end - begin ? head : end - begin;
  const std::int64_t body    = begin + head;
  const std::int64_t vectors = (end - body) / width;
  const std::int64_t tail    = body + vectors * width;

  for (std::int64_t i = begin + rank; i < body; i += GroupSize)
  {
    partial = op(partial, in[i]);
  }
  const Vec* v   = reinterpret_cast<const Vec*>(in + body);
  std::int64_t k = rank;
  for (; k + (Unroll - 1) * GroupSize < vectors; k += Unroll * GroupSize)
  {
    Vec x[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
    {
      x[u] = __ldg(v + k + u * GroupSize);
    }
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
    {
      partial = op(partial, fold_vector<T>(x[u], op));
    }
  }
  if (k < vectors) // fewer than Unroll vectors left for this thread: one predicated round
  {
    Vec x[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
    {
      x[u] = k + u * GroupSize < vectors ? __ldg(v + k + u * GroupSize) : splat(identity);
    }
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
    {
      partial = op(partial, fold_vector<T>(x[u], op));
    }
  }
  for (std::int64_t i = tail + rank; i < end; i += GroupSize)
  {
    partial = op(partial, in[i]);
  }
  return partial;
}

} // namespace redu::segmented
