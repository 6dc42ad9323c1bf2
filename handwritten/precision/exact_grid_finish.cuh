// Precision family, lesson 1's finish across the grid (01_exact_sum.cu): thread 0 of every block adds
// the block's limbs to the global limbs with integer atomics, exact and so order-free (publish_block);
// the last block to arrive takes the total (take_total) and rounds it to the element type once
// (round_total). The block's part is exact_accumulate.cuh.
#pragma once

#include "common/device/grid_ticket.cuh"
#include "handwritten/precision/exact_limbs.cuh"

#include <cstdint>

namespace redu::precision
{

// The global part of the workspace: the limbs, then the non-finite flags and the ticket. One set of limbs
// for the whole grid. The tenth session's 32 copies (block b adding to copy b % 32, the last block adding
// the copies) were meant to spread the atomics of the H100's 2^15 one-tile blocks, which serialise at
// their L2 slice; they did not close that dip (x0.53-0.58 of the plain sum at 2^24-2^27, code_id
// d7f2507c5e1c6468), one wave of blocks did (x0.77-0.88, d0eab216debcd73b), and the last block's 32
// loads per limb cost 3.6 us at small n (2^16 f32 on the H100: 12.1 us against 8.5 without them).
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

// Thread 0 of every block, before its ticket (block_arrives_last): the block's integer, carried into
// balanced digits (|digit| <= 2^31, exact_limbs.cuh), goes to the global limbs (at most 65536 blocks add
// at most 2^47 to any limb), and its non-finite flags to the global flags. Out of line: its registers
// must not count against the streaming loop's.
template <class T>
__device__ __noinline__ void publish_block(long long* block_limbs, unsigned block_non_finite, ExactWorkspace<T>* global)
{
  constexpr int L = ExactFormat<T>::limbs;
  balance<T>(block_limbs); // a negative block sum: atomics only where its magnitude is, not up to the top
  for (int j = 0; j < L; ++j)
  {
    if (block_limbs[j] != 0)
    {
      add_to_limb(global->limbs, j, block_limbs[j]);
    }
  }
  if (block_non_finite != 0)
  {
    atomicOr(&global->non_finite, block_non_finite);
  }
}

// Every thread of the last block (after the ticket, which made every block's atomics visible to it, and a
// __syncthreads() that passed that on): limb j of the total, read at L2 (__ldcg) and set back to 0 for the
// next launch, into block_limbs[j]. Plain loads and stores: no other block touches the limbs any more in
// this launch.
template <int Threads, class T>
__device__ __forceinline__ void take_total(ExactWorkspace<T>* global, long long* block_limbs)
{
  for (int j = threadIdx.x; j < ExactFormat<T>::limbs; j += Threads)
  {
    block_limbs[j]   = __ldcg(&global->limbs[j]);
    global->limbs[j] = 0;
  }
}

// Thread 0 of a grid of one block: its own limbs are the total, rounded once to T. Out of line, as
// publish_block: inlined, round_exact's 128-bit arithmetic made the double kernel spill (312 bytes of
// spill stores at 64 registers, against none).
template <class T> __device__ __noinline__ void round_block(long long* block_limbs, unsigned non_finite, T* out)
{
  *out = round_exact<T>(block_limbs, non_finite);
}

// Thread 0 of the last block: the total rounded once to T (round_block), the flags and the ticket reset.
// Out of line, as publish_block.
template <class T> __device__ __noinline__ void round_total(long long* total_limbs, ExactWorkspace<T>* global, T* out)
{
  round_block<T>(total_limbs, __ldcg(&global->non_finite), out);
  global->non_finite = 0;
  global->ticket     = 0;
}

} // namespace redu::precision
