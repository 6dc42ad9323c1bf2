// Halves (bf16, f16) widened to float, where every operation of this family happens: a half is exact
// in f32, so the only roundings are those of the f32 additions, and the contract's bound is f32's
// (u = 2^-24, common/contract/problem.hpp).
#pragma once

#include "common/contract/ops.cuh"
#include "common/device/vector_load.cuh"

#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace redu::halves
{

// Two halves in one 32-bit word to a float2: one conversion instruction pair per word.
template <class T> __device__ __forceinline__ float2 widen_pair(unsigned word)
{
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
  {
    __nv_bfloat162 pair;
    std::memcpy(&pair, &word, sizeof(pair)); // register moves only
    return __bfloat1622float2(pair);
  }
  else
  {
    __half2 pair;
    std::memcpy(&pair, &word, sizeof(pair));
    return __half22float2(pair);
  }
}

// What a widened element contributes: its square for sum_squares, itself otherwise. A half's square is
// exact in f32 (8 or 11 significant bits squared fit in 24, and f16's range squared stays in f32's;
// bf16's can overflow to inf or underflow, as the f32 square of an f32 value can), so whether the
// compiler fuses it into an FMA changes no bit.
template <class ReduceOp> __device__ __forceinline__ float leaf(float x)
{
  if constexpr (ReduceOp::id == Op::sum_squares)
  {
    return x * x;
  }
  else
  {
    return x;
  }
}

template <class ReduceOp, class T> __device__ __forceinline__ float leaf_of(T x)
{
  return leaf<ReduceOp>(static_cast<float>(x));
}

// The eight halves of one 16-byte pack folded as a tree, ((0 1)(2 3))((4 5)(6 7)): four independent
// operations, then two, then one, so a pack adds three dependent steps, not eight.
template <class T, class ReduceOp> __device__ __forceinline__ float fold_pack8(const Pack<T>& pack, ReduceOp op)
{
  const float2 a = widen_pair<T>(pack.v.x), b = widen_pair<T>(pack.v.y);
  const float2 c = widen_pair<T>(pack.v.z), d = widen_pair<T>(pack.v.w);
  const auto pair = [&](float2 p) { return op(leaf<ReduceOp>(p.x), leaf<ReduceOp>(p.y)); };
  return op(op(pair(a), pair(b)), op(pair(c), pair(d)));
}

} // namespace redu::halves
