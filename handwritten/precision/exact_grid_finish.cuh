// Precision family, lesson 1's finish across the grid (01_exact_sum.cu): thread 0 of every block adds
// the block's limbs to a copy of the global limbs with integer atomics, exact and so order-free
// (publish_block); the last block to arrive adds the copies (gather_copies) and rounds their total to the
// element type once (round_total). The block's part is exact_accumulate.cuh.
#pragma once

#include "common/device/grid_ticket.cuh"
#include "handwritten/precision/exact_limbs.cuh"

#include <cstdint>

namespace redu::precision
{

// Copies of the global limbs: block b adds to copy b % exact_limb_copies, and the last block adds the
// copies, one limb per thread. Atomics on one address serialise at its L2 slice, and the tenth session
// took that for the cause of the H100's dip (x0.45-0.57 of the plain sum at 2^24-2^27, 2^15 blocks of
// one 16 KiB tile each, ~10^5 atomics on a dozen words; code_id d8b423ad3a7127e2). Measured with 32
// copies, the dip stayed (x0.53-0.58, d7f2507c5e1c6468); one wave of blocks closed most of it (x0.77-0.88,
// d0eab216debcd73b): the cost was the number of block finishes, not the atomics' address. Kept, untimed
// without: at one wave all blocks finish at once, and the copies spread their atomics over 32 rows.
inline constexpr int exact_limb_copies = 32;

// The global part of the workspace: the limbs' copies, then the non-finite flags and the ticket.
template <class T> struct ExactWorkspace
{
  long long limbs[exact_limb_copies][ExactFormat<T>::limbs];
  unsigned non_finite;
  unsigned ticket;
};

// A global limb: one native 64-bit atomic (RED.E.ADD.64). Two's complement: an unsigned wrap-around add
// is the signed add.
__device__ __forceinline__ void add_to_limb(long long* limbs, int j, long long value)
{
  atomicAdd(reinterpret_cast<unsigned long long*>(limbs + j), static_cast<unsigned long long>(value));
}

// Thread 0 of every block: the block's integer, carried so every limb is below 2^32, goes to its copy of
// the global limbs (at most 65536 blocks add below 2^48 to any limb of all copies together), then the
// ticket. True for the last block. Out of line: its registers must not count against the streaming loop's.
template <class T>
__device__ __noinline__ bool publish_block(long long* block_limbs, unsigned block_non_finite, ExactWorkspace<T>* global)
{
  constexpr int L = ExactFormat<T>::limbs;
  normalize<T>(block_limbs);
  long long* copy = global->limbs[blockIdx.x % exact_limb_copies];
  for (int j = 0; j < L; ++j)
  {
    if (block_limbs[j] != 0)
    {
      add_to_limb(copy, j, block_limbs[j]);
    }
  }
  if (block_non_finite != 0)
  {
    atomicOr(&global->non_finite, block_non_finite);
  }
  return last_arrival(&global->ticket, gridDim.x);
}

// Every thread of the last block (after the ticket, which made every block's atomics visible to it, and a
// __syncthreads() that passed that on): limb j of the total, the sum of its copies, read at L2 (__ldcg)
// and set back to 0 for the next launch, into block_limbs[j]. Plain loads and stores: no other block
// touches the copies any more in this launch.
template <int Threads, class T>
__device__ __forceinline__ void gather_copies(ExactWorkspace<T>* global, long long* block_limbs)
{
  // Every copy is loaded before any is set to 0: a store between two loads of one array keeps the
  // compiler from issuing the next load first (they might alias), and 32 L2 round trips one after the
  // other are several microseconds (the likely cause of the H100's exact sum going from 8.3 to 14.5 us at
  // small n when the copies came, code_id d7f2507c5e1c6468).
  for (int j = threadIdx.x; j < ExactFormat<T>::limbs; j += Threads)
  {
    long long total = 0;
#pragma unroll
    for (int c = 0; c < exact_limb_copies; ++c)
    {
      total += __ldcg(&global->limbs[c][j]);
    }
#pragma unroll
    for (int c = 0; c < exact_limb_copies; ++c)
    {
      global->limbs[c][j] = 0;
    }
    block_limbs[j] = total;
  }
}

// Thread 0 of the last block: the total rounded once to T, the flags and the ticket reset. Out of line, as
// publish_block.
template <class T> __device__ __noinline__ void round_total(long long* total_limbs, ExactWorkspace<T>* global, T* out)
{
  *out               = round_exact<T>(total_limbs, __ldcg(&global->non_finite));
  global->non_finite = 0;
  global->ticket     = 0;
}

} // namespace redu::precision
