// The grid ticket: of `arrivals` blocks that each publish a contribution, the last to arrive learns that
// it is last and that every contribution is visible to it, so it can finish the work alone.
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>

namespace redu
{

// Called by one thread per arriving block after it has published its contribution (a partial or a
// piece's slot written, an atomic performed, shared counters read; other threads' share ordered before it
// by a __syncthreads()): true for exactly one caller, the last of `arrivals`. The ticket is one acq_rel
// read-modify-write at device scope (atom.acq_rel.gpu): release orders this block's contribution before
// its ticket, acquire lets the winner see every contribution released before the tickets it follows, and
// the winner's __syncthreads() passes that on to its other threads. It replaces the threadFenceReduction
// sample's __threadfence() + atomicInc + __threadfence(): one instruction's semantics instead of two full
// fences, measured faster at small n (handwritten/modern/DESIGN.md).
// The counter's owner sets it back to 0 before its next use (the winner, or whoever reuses the memory).
__device__ __forceinline__ bool last_arrival(unsigned* ticket, unsigned arrivals)
{
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> counter(*ticket);
  return counter.fetch_add(1u, cuda::memory_order_acq_rel) == arrivals - 1;
}

// The first half of the last-block finish (lesson handwritten/modern/03, which spells it out) for the
// kernels that follow it: thread 0 publishes this block's contribution (`publish()`: its partial
// written) and takes a ticket of `arrivals`; every thread of the block returns whether its block
// arrived last. The __syncthreads() also separates the block reduction's two uses of its shared slots.
template <class Publish>
__device__ __forceinline__ bool block_arrives_last(unsigned* ticket, unsigned arrivals, Publish publish)
{
  __shared__ bool is_last;
  if (threadIdx.x == 0)
  {
    publish();
    is_last = last_arrival(ticket, arrivals); // releases the contribution; the winner acquires all
  }
  __syncthreads();
  return is_last;
}

// The same when the block's contribution is already published before the call: by thread 0, or by
// thread 0's warp with a __syncwarp() after its writes (so the ticket's release covers every lane's), as
// the exact sum's warp-wide publish does (handwritten/precision/exact_grid_finish.cuh).
__device__ __forceinline__ bool block_arrives_last(unsigned* ticket, unsigned arrivals)
{
  return block_arrives_last(ticket, arrivals, [] {});
}

} // namespace redu
