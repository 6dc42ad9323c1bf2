// Precision family, lesson 1's finish across the grid (01_exact_sum.cu): warp 0 of every block adds the
// block's limbs to the global limbs with integer atomics, exact and so order-free (publish_block); warp 0
// of the last block to arrive reads the total and rounds it to the element type once (round_total). The
// block's part is exact_accumulate.cuh.
#pragma once

#include "common/device/grid_ticket.cuh"
#include "handwritten/precision/exact_limbs.cuh"

#include <cstdint>

namespace redu::precision
{

// The global part of the workspace: the limbs, then the non-finite flags and the ticket. One set of limbs
// for the whole grid. Copies of the limbs (block b adding to copy b % 32, or % 8 on lines of their own)
// were meant to spread the atomics of many one-tile blocks, which serialise at their L2 slice; they did
// not help, one wave of blocks did, and the last block's loads of every copy cost microseconds at small n
// (DESIGN.md).
template <class T> struct ExactWorkspace
{
  long long limbs[ExactFormat<T>::limbs];
  unsigned non_finite;
  unsigned ticket;
};

// A global limb: one native 64-bit atomic (RED.E.ADD.64). Two's complement: an unsigned wrap-around add
// is the signed add.
__device__ __forceinline__ void add_to_limb(long long* limbs, int j, long long value)
{
  atomicAdd(reinterpret_cast<unsigned long long*>(limbs + j), static_cast<unsigned long long>(value));
}

// The finish is one warp's work, a limb per lane (limb 32 k + lane in digit[k]: one register for float's
// 12 limbs, three for double's 69), so that no thread walks the limbs alone. Before, Nsight Compute at 2^17
// floats found the most sampled instruction of the exact sum behind the barrier where 255 threads of each
// block waited for thread 0 to carry the block's limbs one by one (DESIGN.md).
template <class T> inline constexpr int warp_chunks = (ExactFormat<T>::limbs + 31) / 32;
template <class T> using WarpDigits                 = long long[warp_chunks<T>];

// balance_step (exact_limbs.cuh) with every limb at once: each lane's carry goes to the next lane
// (__shfl_up_sync), lane 31's to lane 0 of the next chunk. Every lane of the warp calls it.
template <class T> __device__ __forceinline__ void warp_balance_step(WarpDigits<T>& digit)
{
  constexpr int L    = ExactFormat<T>::limbs;
  const int lane     = threadIdx.x % 32;
  long long from_low = 0; // the carry out of the chunk below, lane 31's
#pragma unroll
  for (int k = 0; k < warp_chunks<T>; ++k)
  {
    const int j           = 32 * k + lane;
    const long long carry = j < L - 1 ? balanced_carry(digit[k]) : 0; // the top limb keeps its carry
    const long long up    = __shfl_up_sync(0xffffffffu, carry, 1);
    digit[k] += (lane == 0 ? from_low : up) - carry * (1LL << 32);
    from_low = __shfl_sync(0xffffffffu, carry, 31);
  }
}

// The highest limb at or below `limit` whose digit is not 0, or -1. Every lane gets the same answer.
template <class T> __device__ __forceinline__ int warp_highest_nonzero(const WarpDigits<T>& digit, int limit)
{
  const int lane = threadIdx.x % 32;
  int highest    = -1;
#pragma unroll
  for (int k = 0; k < warp_chunks<T>; ++k) // upward, so the last chunk with a non-zero digit wins
  {
    const unsigned nonzero = __ballot_sync(0xffffffffu, digit[k] != 0 && 32 * k + lane <= limit);
    highest                = nonzero != 0 ? 32 * k + 31 - __clz(static_cast<int>(nonzero)) : highest;
  }
  return highest;
}

// Limb j's digit (0 for j < 0), to every lane.
template <class T> __device__ __forceinline__ long long warp_digit(const WarpDigits<T>& digit, int j)
{
  long long value = 0;
#pragma unroll
  for (int k = 0; k < warp_chunks<T>; ++k)
  {
    const long long v = __shfl_sync(0xffffffffu, digit[k], j & 31);
    value             = j >= 0 && j / 32 == k ? v : value;
  }
  return value;
}

// round_exact (exact_limbs.cuh) by the warp, in its order: the non-finite result first, two carry steps,
// then the top digit and the highest non-zero one below the top three by ballots instead of walks. Every
// lane returns T's result.
template <class T> __device__ __forceinline__ T warp_round(WarpDigits<T>& digit, unsigned non_finite)
{
  if (non_finite != 0)
  {
    return non_finite_result<T>(non_finite);
  }
  warp_balance_step<T>(digit);
  warp_balance_step<T>(digit); // every digit below the top within 2^31 + 1: round_from_top's condition
  const int top = warp_highest_nonzero<T>(digit, ExactFormat<T>::limbs - 1);
  if (top < 0)
  {
    return T(0);
  }
  const int below      = warp_highest_nonzero<T>(digit, top - 3);
  const long long high = warp_digit<T>(digit, top);
  const long long mid  = warp_digit<T>(digit, top - 1);
  const long long low  = warp_digit<T>(digit, top - 2);
  const long long rest = warp_digit<T>(digit, below);
  return round_from_top<T>(high, mid, low, top, rest < 0 ? -1 : (rest > 0 ? 1 : 0));
}

// Limb j into lane j % 32 of digit[j / 32], as load(j) gives it; 0 beyond the limbs. The block's limbs come
// from shared memory, the grid's total from L2.
template <class T, class Load> __device__ __forceinline__ void load_digits(WarpDigits<T>& digit, Load load)
{
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int k = 0; k < warp_chunks<T>; ++k)
  {
    const int j = 32 * k + lane;
    digit[k]    = j < ExactFormat<T>::limbs ? load(j) : 0;
  }
}

// Warp 0 of every block, before its ticket (block_arrives_last): the block's integer, after one carry step
// (every digit within 2^32 but the top one, and zeros above a negative sum's magnitude), goes to the global
// limbs with one atomic per non-zero digit, all lanes at once (at most 65536 blocks add at most 2^48 to any
// limb), and its non-finite flags to the global flags. The __syncwarp() orders every lane's atomics before
// lane 0's ticket, whose release then covers them. Out of line: its registers must not count against the
// streaming loop's.
template <class T>
__device__ __noinline__ void publish_block(const long long* block_limbs, unsigned block_non_finite,
                                           ExactWorkspace<T>* global)
{
  const int lane = threadIdx.x % 32;
  WarpDigits<T> digit;
  load_digits<T>(digit, [&](int j) { return block_limbs[j]; });
  warp_balance_step<T>(digit);
#pragma unroll
  for (int k = 0; k < warp_chunks<T>; ++k)
  {
    if (digit[k] != 0) // beyond the limbs every digit is 0
    {
      add_to_limb(global->limbs, 32 * k + lane, digit[k]);
    }
  }
  if (lane == 0 && block_non_finite != 0)
  {
    atomicOr(&global->non_finite, block_non_finite);
  }
  __syncwarp();
}

// Warp 0 of a grid of one block: its own limbs are the total, rounded once to T. Out of line, as
// publish_block: round_from_top's 128-bit arithmetic would otherwise weigh on the streaming loop.
template <class T> __device__ __noinline__ void round_block(const long long* block_limbs, unsigned non_finite, T* out)
{
  WarpDigits<T> digit;
  load_digits<T>(digit, [&](int j) { return block_limbs[j]; });
  const T result = warp_round<T>(digit, non_finite);
  if (threadIdx.x % 32 == 0)
  {
    *out = result;
  }
}

// Warp 0 of the last block (after the ticket, which made every block's atomics visible to it, and a
// __syncthreads() that passed that on): the total's limbs, read at L2 (__ldcg) and set back to 0 for the
// next launch, rounded once to T; the flags and the ticket reset. Plain loads and stores: no other block
// touches the workspace any more in this launch. Out of line, as publish_block.
template <class T> __device__ __noinline__ void round_total(ExactWorkspace<T>* global, T* out)
{
  constexpr int L = ExactFormat<T>::limbs;
  const int lane  = threadIdx.x % 32;
  WarpDigits<T> digit;
  load_digits<T>(digit, [&](int j) { return __ldcg(&global->limbs[j]); });
  const unsigned non_finite = __ldcg(&global->non_finite);
#pragma unroll
  for (int k = 0; k < warp_chunks<T>; ++k)
  {
    if (32 * k + lane < L)
    {
      global->limbs[32 * k + lane] = 0;
    }
  }
  const T result = warp_round<T>(digit, non_finite);
  if (lane == 0)
  {
    *out               = result;
    global->non_finite = 0;
    global->ticket     = 0;
  }
}

} // namespace redu::precision
