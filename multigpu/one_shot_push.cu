// One-shot push all-reduce for small messages: no barrier at all. Every GPU writes its message straight
// into every GPU's mailbox, each 4 bytes of message beside a 4-byte flag in one 8-byte word (one store, so
// a reader that sees the flag sees the data with it: NCCL's "LL" protocol), then waits in its own mailbox
// for the words of every peer and sums them in rank order 0..G-1, as the one-shot kernel does (same bits).
//
// Why: the pull one-shot (one_shot.cu) pays two barriers, each a flag's round trip over NVLink (~2 us
// apiece on 2 x H200, measured), then one remote read. Pushing pays one one-way trip: the peer's stores
// travel while this GPU stores its own. The price is bytes: 8 bytes sent per 4 of message, (G-1) * 2m
// per GPU, so it pays only while latency dominates (push_max_bytes).
//
// Why no barrier at the end either: mailboxes come in two parities, call k using parity k % 2. A GPU
// starts call k + 2 (rewriting parity k % 2 in its peers) only after its call k + 1 received every peer's
// words of call k + 1, which every peer sent after finishing its call k, reads included (stream order).
// Flags are the call's number, never 0 (the mailboxes start zeroed), so a word left by an older call
// never passes for this one's.
#include "multigpu/all_reduce.hpp"
#include "multigpu/mailboxes.cuh"
#include "multigpu/peer_barrier.cuh"
#include "multigpu/world_dispatch.cuh"

#include <cuda/atomic>

namespace redu::multigpu
{

namespace
{

// 4 bytes of message: one float, or two bf16 (the second absent past the end of an odd count).
template <class E> struct Payload;

template <> struct Payload<F32>
{
  static constexpr int per_word = 1;
  __device__ static std::uint32_t load(const void* in, std::int64_t w, std::int64_t)
  {
    return static_cast<const std::uint32_t*>(in)[w];
  }
  __device__ static float lane(std::uint32_t word, int) { return __uint_as_float(word); }
  __device__ static void store(void* out, std::int64_t w, std::int64_t, const float (&sum)[1])
  {
    static_cast<float*>(out)[w] = sum[0];
  }
};

template <> struct Payload<Bf16>
{
  static constexpr int per_word = 2;
  __device__ static std::uint32_t load(const void* in, std::int64_t w, std::int64_t count)
  {
    const auto* x = static_cast<const std::uint16_t*>(in);
    return x[2 * w] | (2 * w + 1 < count ? static_cast<std::uint32_t>(x[2 * w + 1]) << 16 : 0u);
  }
  __device__ static float lane(std::uint32_t word, int l)
  {
    return bf16_to_float(static_cast<std::uint16_t>(word >> (16 * l)));
  }
  __device__ static void store(void* out, std::int64_t w, std::int64_t count, const float (&sum)[2])
  {
    auto* y  = static_cast<std::uint16_t*>(out);
    y[2 * w] = bf16_round(sum[0]);
    if (2 * w + 1 < count)
    {
      y[2 * w + 1] = bf16_round(sum[1]);
    }
  }
};

using Word = unsigned long long; // low half the payload, high half the flag

template <class E, int G>
__global__ void __launch_bounds__(all_reduce_threads)
    one_shot_push_kernel(const void* __restrict__ in, void* __restrict__ out, std::int64_t count, Mailboxes boxes,
                         std::uint32_t flag, int parity)
{
  constexpr std::uint64_t timeout_ns = 20ull * 1000 * 1000 * 1000;
  using P                            = Payload<E>;
  const std::int64_t words           = (count + P::per_word - 1) / P::per_word;
  const std::int64_t stride          = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t first           = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // One word of a mailbox (layout: mailboxes.cuh); system scope: the peers' stores arrive over NVLink.
  const auto slot = [&](Word* box, int par, int sender, std::int64_t w) {
    return cuda::atomic_ref<Word, cuda::thread_scope_system>(box[mailbox_index(par, sender, G, boxes.words, w)]);
  };
  for (std::int64_t w = first; w < words; w += stride)
  {
    const Word word = static_cast<Word>(flag) << 32 | P::load(in, w, count);
#pragma unroll
    for (int p = 0; p < G; ++p) // the word into every mailbox, this GPU's own included
    {
      slot(boxes.at[p], parity, boxes.rank, w).store(word, cuda::memory_order_relaxed);
    }
  }
  // The same thread reads the same words: it waits only for the same thread of each peer's grid (one
  // block per SM at most, all_reduce_blocks, so every such thread is running).
  Word* const mine = boxes.at[boxes.rank];
  for (std::int64_t w = first; w < words; w += stride)
  {
    Word got[G];
#pragma unroll
    for (int p = 0; p < G; ++p) // every peer's word asked for at once, then waited for one by one
    {
      got[p] = slot(mine, parity, p, w).load(cuda::memory_order_relaxed);
    }
    std::uint32_t lanes[G];
#pragma unroll
    for (int p = 0; p < G; ++p)
    {
      const std::uint64_t start = global_timer_ns();
      while (static_cast<std::uint32_t>(got[p] >> 32) != flag)
      {
        if (global_timer_ns() - start > timeout_ns)
        {
          atomicExch(boxes.timed_out, 1);
          break;
        }
        got[p] = slot(mine, parity, p, w).load(cuda::memory_order_relaxed);
      }
      lanes[p] = static_cast<std::uint32_t>(got[p]);
    }
    float sum[P::per_word];
#pragma unroll
    for (int l = 0; l < P::per_word; ++l)
    {
      sum[l] = P::lane(lanes[0], l);
#pragma unroll
      for (int p = 1; p < G; ++p)
      {
        sum[l] += P::lane(lanes[p], l);
      }
    }
    P::store(out, w, count, sum);
  }
}

template <class E>
Status dispatch_push(int world, int blocks, cudaStream_t stream, const void* in, void* out, std::int64_t count,
                     const Mailboxes& boxes, std::uint32_t flag, int parity)
{
  return dispatch_world(world, "one-shot push all-reduce", [&](auto gpus) {
    one_shot_push_kernel<E, decltype(gpus)::value>
        <<<blocks, all_reduce_threads, 0, stream>>>(in, out, count, boxes, flag, parity);
  });
}

} // namespace

Status launch_one_shot_push_all_reduce(Elem elem, int world, int blocks, cudaStream_t stream, const void* in, void* out,
                                       std::int64_t count, const Mailboxes& boxes, std::uint32_t flag, int parity)
{
  return elem == Elem::f32 ? dispatch_push<F32>(world, blocks, stream, in, out, count, boxes, flag, parity)
                           : dispatch_push<Bf16>(world, blocks, stream, in, out, count, boxes, flag, parity);
}

} // namespace redu::multigpu
