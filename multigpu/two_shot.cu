// Two-shot all-reduce: reduce-scatter, then all-gather, both by loads from peer memory.
//   1. GPU r sums chunk r (1/G of the packs, even_split) from all G buffers, in rank order, into its
//      scratch buffer (and its own output);
//   2. barrier; GPU r copies every peer p's reduced chunk p from p's scratch into its output.
// Each GPU pulls (G-1)/G * m in step 1 and the same in step 2: 2(G-1)/G * m, a ring's bytes in two
// steps instead of 2(G-1), and one barrier more than one-shot. On 2 GPUs its bytes equal one-shot's
// (m), so it only pays off from G = 3 on; it is here because that is where the study goes next (8 GPUs:
// 1.75m against one-shot's 7m: 256 MB in ~1 ms instead of ~4 ms at 450 GB/s).
// Block b of every rank handles the same offsets within a chunk in both steps, so the barrier between
// the steps pairs block b with block b (peer_barrier.cuh) and no grid-wide barrier is needed.
#include "multigpu/all_reduce.hpp"
#include "multigpu/partition.hpp"
#include "multigpu/peer_barrier.cuh"
#include "multigpu/world_dispatch.cuh"

namespace redu::multigpu
{

template <class E, int G>
__global__ void __launch_bounds__(all_reduce_threads)
    two_shot_kernel(PeerPointers in, PeerPointers scratch, typename E::storage* __restrict__ out, std::int64_t count,
                    Signals signals, std::uint32_t epoch)
{
  peer_barrier<G>(signals, epoch + 1); // every peer's input is written
  const int rank            = signals.rank;
  const std::int64_t packs  = count / E::per_pack;
  const std::int64_t first  = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  auto* out_packs           = reinterpret_cast<uint4*>(out);

  // 1. Reduce-scatter: this rank's chunk.
  const Range mine = even_split(packs, G, rank);
  auto* reduced    = static_cast<uint4*>(const_cast<void*>(scratch.at[rank]));
  for (std::int64_t j = first; j < mine.size(); j += stride)
  {
    const std::int64_t i = mine.begin + j;
    uint4 v[G];
#pragma unroll
    for (int p = 0; p < G; ++p)
    {
      v[p] = static_cast<const uint4*>(in.at[p])[i];
    }
    const uint4 sum = sum_packs<E, G>(v);
    reduced[i]      = sum;
    out_packs[i]    = sum;
  }
  const std::int64_t tail = packs * E::per_pack + threadIdx.x;
  if (blockIdx.x == 0 && tail < count)
  {
    out[tail] = sum_scalars<E, G>(in, tail);
  }

  peer_barrier<G>(signals, epoch + 2); // every peer's chunk is reduced

  // 2. All-gather: the peers' chunks. Chunk 0 is the longest (even_split), so its length bounds the loop.
  const std::int64_t longest = even_split(packs, G, 0).size();
  for (std::int64_t j = first; j < longest; j += stride)
  {
#pragma unroll
    for (int p = 0; p < G; ++p)
    {
      const Range theirs = even_split(packs, G, p);
      if (p != rank && j < theirs.size())
      {
        // Written by peer p during this kernel: an L2 load (.cg), never a possibly stale L1 line.
        out_packs[theirs.begin + j] = __ldcg(static_cast<const uint4*>(scratch.at[p]) + theirs.begin + j);
      }
    }
  }
  peer_barrier<G>(signals, epoch + 3); // every peer has finished reading this rank's input and scratch
}

template <class E>
Status dispatch_two_shot(int world, int blocks, cudaStream_t stream, const PeerPointers& in,
                         const PeerPointers& scratch, void* out, std::int64_t count, const Signals& signals,
                         std::uint32_t epoch)
{
  return dispatch_world(world, "two-shot all-reduce", [&](auto gpus) {
    two_shot_kernel<E, decltype(gpus)::value><<<blocks, all_reduce_threads, 0, stream>>>(
        in, scratch, static_cast<typename E::storage*>(out), count, signals, epoch);
  });
}

Status launch_two_shot_all_reduce(Elem elem, int world, int blocks, cudaStream_t stream, const PeerPointers& in,
                                  const PeerPointers& scratch, void* out, std::int64_t count, const Signals& signals,
                                  std::uint32_t epoch)
{
  return elem == Elem::f32 ? dispatch_two_shot<F32>(world, blocks, stream, in, scratch, out, count, signals, epoch)
                           : dispatch_two_shot<Bf16>(world, blocks, stream, in, scratch, out, count, signals, epoch);
}

} // namespace redu::multigpu
