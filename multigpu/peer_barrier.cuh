// The barrier between the ranks' kernels, by flags in peer memory. Block b of rank r writes its epoch
// into slot [b][r] of every rank's signal buffer (a release store at system scope: everything the block
// wrote before is visible to whoever sees the flag), then waits until every rank's block b has written
// at least that epoch into its own slots [b][*] (acquire loads). One flag store and one flag read per
// peer: about one NVLink round trip, 1-2 us, against ~20 us for an NCCL call at small sizes.
//
// Why per block and not per grid: the kernels give block b of every rank the same elements to touch
// (same grid, same split), so block b only needs block b of its peers. Why epochs, not a flip-flop: a
// fast peer may already be one barrier ahead when a slow block looks; "at least this epoch" stays true.
// Why a timeout: a peer that never comes (a failed rank, a mismatched call sequence) must produce an
// error, not a hung GPU; after 20 s the block records the timeout and goes on (its result is then wrong,
// and AllReduceBuffers::check_timeouts says so).
#pragma once

#include "multigpu/communicator.hpp"
#include "multigpu/pattern.hpp"

#include <cuda/atomic>

#include <cstdint>

namespace redu::multigpu
{

struct Signals
{
  std::uint32_t* slots[max_ranks]; // every rank's signal buffer, as this GPU addresses it
  int rank;
  int* timed_out; // local
};

struct PeerPointers
{
  const void* at[max_ranks];
};

__device__ __forceinline__ std::uint64_t global_timer_ns()
{
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

template <int G>
__device__ __forceinline__ void peer_barrier(const Signals& signals, std::uint32_t epoch)
{
  constexpr std::uint64_t timeout_ns = 20ull * 1000 * 1000 * 1000;
  __syncthreads(); // the whole block's writes come before the flag
  if (threadIdx.x < G)
  {
    const int peer = static_cast<int>(threadIdx.x);
    cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system> to_peer(
        signals.slots[peer][blockIdx.x * max_ranks + signals.rank]);
    to_peer.store(epoch, cuda::memory_order_release);
    cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system> from_peer(
        signals.slots[signals.rank][blockIdx.x * max_ranks + peer]);
    const std::uint64_t start = global_timer_ns();
    while (static_cast<std::int32_t>(from_peer.load(cuda::memory_order_acquire) - epoch) < 0)
    {
      if (global_timer_ns() - start > timeout_ns)
      {
        atomicExch(signals.timed_out, 1);
        break;
      }
    }
  }
  __syncthreads(); // the whole block's reads come after
}

// 16 bytes of elements: 4 floats or 8 bf16, summed in float in rank order.
struct F32
{
  using storage                     = float;
  static constexpr int per_pack     = 4;
  __device__ static float widen(float x) { return x; }
  __device__ static float narrow(float x) { return x; }
};

struct Bf16
{
  using storage                 = std::uint16_t;
  static constexpr int per_pack = 8;
  __device__ static float widen(std::uint16_t x) { return bf16_to_float(x); }
  __device__ static std::uint16_t narrow(float x) { return bf16_round(x); }
};

// The sum of G packs, v[0] + v[1] + ... + v[G-1] in that order, lane by lane.
template <class E, int G>
__device__ __forceinline__ uint4 sum_packs(const uint4 (&v)[G])
{
  typename E::storage lanes[G][E::per_pack];
#pragma unroll
  for (int p = 0; p < G; ++p)
  {
    memcpy(lanes[p], &v[p], sizeof(uint4));
  }
  typename E::storage result[E::per_pack];
#pragma unroll
  for (int l = 0; l < E::per_pack; ++l)
  {
    float acc = E::widen(lanes[0][l]);
#pragma unroll
    for (int p = 1; p < G; ++p)
    {
      acc += E::widen(lanes[p][l]);
    }
    result[l] = E::narrow(acc);
  }
  uint4 out;
  memcpy(&out, result, sizeof out);
  return out;
}

// The same for one element (the tail that does not fill a pack).
template <class E, int G>
__device__ __forceinline__ typename E::storage sum_scalars(const PeerPointers& in, std::int64_t i)
{
  float acc = E::widen(static_cast<const typename E::storage*>(in.at[0])[i]);
#pragma unroll
  for (int p = 1; p < G; ++p)
  {
    acc += E::widen(static_cast<const typename E::storage*>(in.at[p])[i]);
  }
  return E::narrow(acc);
}

} // namespace redu::multigpu
