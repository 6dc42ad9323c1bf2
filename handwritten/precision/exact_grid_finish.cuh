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

// The global part of the workspace: Copies sets of limbs, each on its own 128-byte lines, then the
// non-finite flags and the ticket on a line of their own. Block b adds to copy b % Copies, and the last
// block adds the copies up (take_total). Why copies: with one wave of blocks (precision.exact_waves) every
// block publishes at about the same moment, 2-3 limb atomics and a ticket each, and atomics on one 128-byte
// line queue at its L2 slice, one after another; copies on separate lines (and the ticket apart) split
// that queue. The tenth session's 32 copies at 64 waves cost the last block 32 dependent loads per limb
// (3.6 us at 2^16 f32 on the H100, code_id d7f2507c5e1c6468); here a thread per limb issues its copies'
// loads together, one round trip, and one block (n up to a tile) skips the global limbs altogether.
template <class T, int Copies> struct ExactWorkspace
{
  struct alignas(128) LimbCopy
  {
    long long limbs[ExactFormat<T>::limbs];
  };
  LimbCopy copies[Copies];
  alignas(128) unsigned non_finite;
  unsigned ticket;
};

// A global limb: one native 64-bit atomic (RED.E.ADD.64). Two's complement: an unsigned wrap-around add
// is the signed add.
__device__ __forceinline__ void add_to_limb(long long* limbs, int j, long long value)
{
  atomicAdd(reinterpret_cast<unsigned long long*>(limbs + j), static_cast<unsigned long long>(value));
}

// Thread 0 of every block, before its ticket (block_arrives_last): the block's integer, carried into
// balanced digits (|digit| <= 2^31, exact_limbs.cuh), goes to its copy of the global limbs (at most 65536
// blocks add at most 2^47 to any limb, over all copies), and its non-finite flags to the global flags.
// Out of line: its registers must not count against the streaming loop's.
template <class T, int Copies>
__device__ __noinline__ void publish_block(long long* block_limbs, unsigned block_non_finite,
                                           ExactWorkspace<T, Copies>* global)
{
  constexpr int L = ExactFormat<T>::limbs;
  long long* limbs = global->copies[blockIdx.x % Copies].limbs;
  balance<T>(block_limbs); // a negative block sum: atomics only where its magnitude is, not up to the top
  for (int j = 0; j < L; ++j)
  {
    if (block_limbs[j] != 0)
    {
      add_to_limb(limbs, j, block_limbs[j]);
    }
  }
  if (block_non_finite != 0)
  {
    atomicOr(&global->non_finite, block_non_finite);
  }
}

// Every thread of the last block (after the ticket, which made every block's atomics visible to it, and a
// __syncthreads() that passed that on): limb j of the total, its copies read at L2 (__ldcg, all issued
// before the first is added) and set back to 0 for the next launch, into block_limbs[j]. Plain loads and
// stores: no other block touches the limbs any more in this launch.
template <int Threads, class T, int Copies>
__device__ __forceinline__ void take_total(ExactWorkspace<T, Copies>* global, long long* block_limbs)
{
  for (int j = threadIdx.x; j < ExactFormat<T>::limbs; j += Threads)
  {
    long long copy[Copies];
#pragma unroll
    for (int k = 0; k < Copies; ++k)
    {
      copy[k] = __ldcg(&global->copies[k].limbs[j]);
    }
    long long total = 0;
#pragma unroll
    for (int k = 0; k < Copies; ++k)
    {
      total += copy[k];
      global->copies[k].limbs[j] = 0;
    }
    block_limbs[j] = total;
  }
}

// Thread 0 of the last block: the total rounded once to T, the flags and the ticket reset. Out of line, as
// publish_block.
template <class T, int Copies>
__device__ __noinline__ void round_total(long long* total_limbs, ExactWorkspace<T, Copies>* global, T* out)
{
  *out               = round_exact<T>(total_limbs, __ldcg(&global->non_finite));
  global->non_finite = 0;
  global->ticket     = 0;
}

} // namespace redu::precision
