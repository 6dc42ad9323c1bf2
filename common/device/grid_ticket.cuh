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
// fences, measured 0.35-0.5 us faster at small n (handwritten/modern/NOTES.md, idea 5).
// The counter's owner sets it back to 0 before its next use (the winner, or whoever reuses the memory).
__device__ __forceinline__ bool last_arrival(unsigned* ticket, unsigned arrivals)
{
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> counter(*ticket);
  return counter.fetch_add(1u, cuda::memory_order_acq_rel) == arrivals - 1;
}

} // namespace redu
