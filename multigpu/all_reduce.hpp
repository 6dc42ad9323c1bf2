// Element-wise all-reduce (sum) of an m-element vector held by every rank: afterwards every rank holds
// the element-wise sum. Four ways, one interface:
//   one_shot       every GPU reads all G buffers over NVLink and sums them itself (one_shot.cu);
//   one_shot_push  every GPU writes its message, flagged, into every GPU's mailbox and sums what arrives
//                  in its own: no barrier, small messages only (one_shot_push.cu, push_max_bytes);
//   two_shot       reduce-scatter then all-gather, both by peer loads (two_shot.cu);
//   nccl           ncclAllReduce (NCCL picks ring or tree; NVLS is off).
// The hand-written three sum in rank order 0, 1, ..., G-1 on every GPU, so every GPU gets the same bits,
// and the bits equal the host reference's (pattern.hpp, tests). NCCL promises neither.
//
// The hand-written ones work on registered memory: the input must be AllReduceBuffers::input() (the
// caller writes it there: vLLM's "registered buffer" mode; copying a user buffer in first would cost
// one more local pass). The output is any device buffer of the caller's.
#pragma once

#include "common/contract/status.hpp"
#include "common/host/device_buffer.hpp"
#include "multigpu/communicator.hpp"
#include "multigpu/peer_buffer.hpp"

#include <cstddef>
#include <cstdint>

namespace redu::multigpu
{

enum class Elem
{
  f32,
  bf16
};
const char* to_string(Elem elem);
std::size_t size_of(Elem elem);
inline constexpr Elem all_elems[] = {Elem::f32, Elem::bf16};

enum class AllReduceVariant
{
  one_shot,
  one_shot_push,
  two_shot,
  nccl
};
const char* to_string(AllReduceVariant variant);
inline constexpr AllReduceVariant all_variants[] = {AllReduceVariant::one_shot, AllReduceVariant::one_shot_push,
                                                    AllReduceVariant::two_shot, AllReduceVariant::nccl};

// The largest message one_shot_push takes. It sends 8 bytes per 4 of message to each peer and keeps
// 2 parities x G senders of them per GPU (4 G m bytes of mailbox): worth it while the barriers it saves
// (two NVLink round trips) cost more than the doubled bytes; at 512 KB on 2 GPUs those bytes take ~2.3 us
// at 450 GB/s, about what the two barriers cost.
inline constexpr std::size_t push_max_bytes = std::size_t{512} << 10;

// Whether `variant` takes a message of `bytes` (all do but one_shot_push above push_max_bytes).
bool takes(AllReduceVariant variant, std::size_t bytes);

// The grid both hand-written kernels use: threads per block, and the most blocks (one per SM, so every
// block of every rank is resident at once: a block waiting at a barrier for a block that could not be
// scheduled would wait forever).
inline constexpr int all_reduce_threads = 512;
inline constexpr int max_barrier_blocks = 256; // flag slots per rank in the signal buffer

// Blocks for `work_packs` 16-byte packs of work per rank: enough for one pack per thread, at most one
// per SM, at least one. The same on every rank for the same arguments.
int all_reduce_blocks(std::int64_t work_packs, int sm_count);

// The peer-visible memory of the hand-written all-reduce, made once for the largest message.
class AllReduceBuffers
{
public:
  // Collective. max_bytes: the largest message.
  Status allocate(Communicator& comm, std::size_t max_bytes);
  Status release(Communicator& comm);

  void* input() const { return input_.local(); }
  std::size_t max_bytes() const { return input_.bytes(); }

  // Whether a barrier inside a kernel gave up waiting for a peer (which then missed the call, or died):
  // an error instead of a hang. Synchronises the stream.
  Status check_timeouts(Communicator& comm);

  PeerBuffer input_;   // the message, read by every peer
  PeerBuffer scratch_; // two-shot: this rank's reduced chunk, read by every peer
  PeerBuffer signals_; // barrier flags: [block][sender rank] 32-bit epochs, written by the peers
  PeerBuffer mailboxes_; // one_shot_push: [parity][sender rank][word] flagged words, written by the peers
  DeviceBuffer timed_out_;
  std::uint32_t epoch_ = 0; // calls so far; every rank makes the same calls, so the same count
  std::uint64_t push_calls_ = 0; // one_shot_push calls so far: its parity and its flag
};

// Enqueue on comm.stream(). `count` elements of `elem`; count * size_of(elem) <= buffers.max_bytes().
Status one_shot_all_reduce(Communicator& comm, AllReduceBuffers& buffers, Elem elem, std::int64_t count, void* output);
Status one_shot_push_all_reduce(Communicator& comm, AllReduceBuffers& buffers, Elem elem, std::int64_t count,
                                void* output);
Status two_shot_all_reduce(Communicator& comm, AllReduceBuffers& buffers, Elem elem, std::int64_t count, void* output);
Status nccl_all_reduce(Communicator& comm, const void* input, Elem elem, std::int64_t count, void* output);

// Any of the three, the input being buffers.input().
Status all_reduce(AllReduceVariant variant, Communicator& comm, AllReduceBuffers& buffers, Elem elem,
                  std::int64_t count, void* output);

// Device fill of count elements with signed_pattern(seed, first_index + i) (bf16: rounded).
Status fill_signed_pattern(Elem elem, void* data, std::int64_t count, std::uint32_t seed, cudaStream_t stream);
// Device fill with unit_pattern(seed, first_index + i): the sharded sum's data.
Status fill_unit_pattern(float* data, std::int64_t count, std::int64_t first_index, std::uint32_t seed,
                         cudaStream_t stream);

// The peer-to-peer yardstick done by SMs instead of the copy engine: a kernel on this GPU pulls `bytes`
// (a multiple of 16) from `source` (a peer's buffer) into local `destination` with 16-byte loads, one
// block per SM: what the one-shot kernel's loads can reach at best.
Status pull_copy(void* destination, const void* source, std::size_t bytes, int sm_count, cudaStream_t stream);

} // namespace redu::multigpu
