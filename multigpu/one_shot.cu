// One-shot all-reduce: after a barrier, every GPU reads the whole message from every peer with 16-byte
// loads and sums the G packs in rank order, so every GPU computes the same bits by itself. One step, so
// the latency is one barrier, one remote read and one barrier: the way to beat NCCL on small messages
// (vLLM and TensorRT-LLM ship this kernel for exactly that).
// The bytes: each GPU pulls (G-1) * m over its links. On 2 GPUs that is m, the same as a ring's
// 2(G-1)/G * m; on 8 GPUs 7m against 1.75m, so beyond a few hundred KB two-shot or the ring wins.
// Napkin, 2 x H200 (450 GB/s per direction): 256 KB pulled in ~0.6 us, so below ~1 MB the time is the
// launch (~3 us host-side), the two barriers (~1-2 us each) and the remote load latency (~1 us).
// The second barrier: a rank must not change its input (the next call's data) while a peer still reads it.
#include "multigpu/all_reduce.hpp"
#include "multigpu/peer_barrier.cuh"
#include "multigpu/world_dispatch.cuh"

namespace redu::multigpu
{

template <class E, int G>
__global__ void __launch_bounds__(all_reduce_threads)
    one_shot_kernel(PeerPointers in, typename E::storage* __restrict__ out, std::int64_t count, Signals signals,
                    std::uint32_t epoch)
{
  peer_barrier<G>(signals, epoch + 1); // every peer's input is written
  const std::int64_t packs  = count / E::per_pack;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < packs; i += stride)
  {
    uint4 v[G];
#pragma unroll
    for (int p = 0; p < G; ++p) // all G loads in flight before the first add
    {
      v[p] = static_cast<const uint4*>(in.at[p])[i];
    }
    reinterpret_cast<uint4*>(out)[i] = sum_packs<E, G>(v);
  }
  const std::int64_t tail = packs * E::per_pack + threadIdx.x;
  if (blockIdx.x == 0 && tail < count) // fewer than one pack of elements left: one thread each
  {
    out[tail] = sum_scalars<E, G>(in, tail);
  }
  peer_barrier<G>(signals, epoch + 3); // every peer has finished reading this rank's input
}

template <class E>
Status dispatch_one_shot(int world, int blocks, cudaStream_t stream, const PeerPointers& in, void* out,
                         std::int64_t count, const Signals& signals, std::uint32_t epoch)
{
  return dispatch_world(world, "one-shot all-reduce", [&](auto gpus) {
    one_shot_kernel<E, decltype(gpus)::value><<<blocks, all_reduce_threads, 0, stream>>>(
        in, static_cast<typename E::storage*>(out), count, signals, epoch);
  });
}

Status launch_one_shot_all_reduce(Elem elem, int world, int blocks, cudaStream_t stream, const PeerPointers& in,
                                  void* out, std::int64_t count, const Signals& signals, std::uint32_t epoch)
{
  return elem == Elem::f32 ? dispatch_one_shot<F32>(world, blocks, stream, in, out, count, signals, epoch)
                           : dispatch_one_shot<Bf16>(world, blocks, stream, in, out, count, signals, epoch);
}

} // namespace redu::multigpu
