// The host side of the three all-reduce variants: buffers, grid, epochs, dispatch; and the input fills.
#include "multigpu/all_reduce.hpp"
#include "multigpu/mailboxes.cuh"
#include "multigpu/pattern.hpp"
#include "multigpu/peer_barrier.cuh"

#include <algorithm>

namespace redu::multigpu
{

// one_shot.cu, one_shot_push.cu, two_shot.cu
Status launch_one_shot_all_reduce(Elem elem, int world, int blocks, cudaStream_t stream, const PeerPointers& in,
                                  void* out, std::int64_t count, const Signals& signals, std::uint32_t epoch);
Status launch_one_shot_push_all_reduce(Elem elem, int world, int blocks, cudaStream_t stream, const void* in, void* out,
                                       std::int64_t count, const Mailboxes& boxes, std::uint32_t flag, int parity);
Status launch_two_shot_all_reduce(Elem elem, int world, int blocks, cudaStream_t stream, const PeerPointers& in,
                                  const PeerPointers& scratch, void* out, std::int64_t count, const Signals& signals,
                                  std::uint32_t epoch);

const char* to_string(Elem elem)
{
  return elem == Elem::f32 ? "f32" : "bf16";
}

std::size_t size_of(Elem elem)
{
  return elem == Elem::f32 ? 4 : 2;
}

const char* to_string(AllReduceVariant variant)
{
  switch (variant)
  {
  case AllReduceVariant::one_shot: return "one_shot";
  case AllReduceVariant::one_shot_push: return "one_shot_push";
  case AllReduceVariant::two_shot: return "two_shot";
  case AllReduceVariant::nccl: return "nccl";
  }
  return "?";
}

bool takes(AllReduceVariant variant, std::size_t bytes)
{
  return variant != AllReduceVariant::one_shot_push || bytes <= push_max_bytes;
}

int all_reduce_blocks(std::int64_t work_packs, int sm_count)
{
  const std::int64_t cap    = std::min<std::int64_t>(std::max(sm_count, 1), max_barrier_blocks);
  const std::int64_t needed = (work_packs + all_reduce_threads - 1) / all_reduce_threads;
  return static_cast<int>(std::max<std::int64_t>(1, std::min(needed, cap)));
}

Status AllReduceBuffers::allocate(Communicator& comm, std::size_t max_bytes)
{
  // Whole 16-byte packs, at least one (the tail of a message is read element by element; the rounding
  // only keeps every buffer a multiple of a pack).
  const std::size_t bytes = (std::max<std::size_t>(max_bytes, 16) + 15) / 16 * 16;
  REDU_TRY(input_.allocate(comm, bytes));
  REDU_TRY(scratch_.allocate(comm, bytes));
  REDU_TRY(signals_.allocate(comm, sizeof(std::uint32_t) * max_barrier_blocks * max_ranks));
  const std::size_t box_words = (std::min(bytes, push_max_bytes) + 3) / 4; // a word per 4 message bytes
  REDU_TRY(mailboxes_.allocate(comm, mailbox_bytes(comm.world(), static_cast<std::int64_t>(box_words))));
  push_calls_ = 0;
  REDU_TRY(timed_out_.allocate(sizeof(int)));
  REDU_CUDA_TRY(cudaMemset(timed_out_.data(), 0, sizeof(int)));
  epoch_ = 0;
  return comm.barrier();
}

Status AllReduceBuffers::release(Communicator& comm)
{
  REDU_TRY(input_.release(comm));
  REDU_TRY(scratch_.release(comm));
  REDU_TRY(mailboxes_.release(comm));
  return signals_.release(comm);
}

Status AllReduceBuffers::check_timeouts(Communicator& comm)
{
  int timed_out = 0;
  REDU_CUDA_TRY(cudaMemcpyAsync(&timed_out, timed_out_.data(), sizeof timed_out, cudaMemcpyDeviceToHost, comm.stream()));
  REDU_CUDA_TRY(cudaStreamSynchronize(comm.stream()));
  if (timed_out != 0)
  {
    return Status::invalid("rank " + std::to_string(comm.rank())
                           + ": a barrier of the hand-written all-reduce timed out waiting for a peer (a rank failed, "
                             "or the ranks did not make the same calls)");
  }
  return Status::success();
}

namespace
{

Status check_call(const Communicator& comm, const AllReduceBuffers& buffers, Elem elem, std::int64_t count)
{
  if (count < 0 || static_cast<std::size_t>(count) * size_of(elem) > buffers.max_bytes())
  {
    return Status::invalid("all-reduce of " + std::to_string(count) + " " + to_string(elem) + " elements: the buffers hold "
                           + std::to_string(buffers.max_bytes()) + " bytes");
  }
  if (comm.world() > max_ranks)
  {
    return Status::invalid("the hand-written all-reduce supports at most 8 GPUs");
  }
  return Status::success();
}

PeerPointers pointers(const PeerBuffer& buffer, int world)
{
  PeerPointers p{};
  for (int r = 0; r < world; ++r)
  {
    p.at[r] = buffer.peer(r);
  }
  return p;
}

Signals signals_of(const AllReduceBuffers& buffers, const Communicator& comm)
{
  Signals s{};
  for (int r = 0; r < comm.world(); ++r)
  {
    s.slots[r] = static_cast<std::uint32_t*>(buffers.signals_.peer(r));
  }
  s.rank      = comm.rank();
  s.timed_out = buffers.timed_out_.as<int>();
  return s;
}

} // namespace

Status one_shot_all_reduce(Communicator& comm, AllReduceBuffers& buffers, Elem elem, std::int64_t count, void* output)
{
  REDU_TRY(check_call(comm, buffers, elem, count));
  const std::int64_t packs = count * static_cast<std::int64_t>(size_of(elem)) / 16;
  const int blocks         = all_reduce_blocks(packs, comm.sm_count());
  const std::uint32_t epoch = buffers.epoch_;
  buffers.epoch_ += 3;
  return launch_one_shot_all_reduce(elem, comm.world(), blocks, comm.stream(), pointers(buffers.input_, comm.world()),
                                    output, count, signals_of(buffers, comm), epoch);
}

Status one_shot_push_all_reduce(Communicator& comm, AllReduceBuffers& buffers, Elem elem, std::int64_t count,
                                void* output)
{
  REDU_TRY(check_call(comm, buffers, elem, count));
  const std::size_t bytes = static_cast<std::size_t>(count) * size_of(elem);
  if (!takes(AllReduceVariant::one_shot_push, bytes))
  {
    return Status::invalid("one_shot_push all-reduce of " + std::to_string(bytes) + " bytes: it takes at most "
                           + std::to_string(push_max_bytes) + " (use one_shot, two_shot or nccl)");
  }
  Mailboxes boxes{};
  for (int r = 0; r < comm.world(); ++r)
  {
    boxes.at[r] = static_cast<unsigned long long*>(buffers.mailboxes_.peer(r));
  }
  boxes.words     = mailbox_words(buffers.mailboxes_.bytes(), comm.world()); // as allocate() sized them
  boxes.rank      = comm.rank();
  boxes.timed_out = buffers.timed_out_.as<int>();
  // Flags 1 .. 2^32 - 1 (0 is the zeroed mailbox), parities alternating with every call.
  const std::uint64_t call  = buffers.push_calls_++;
  const auto flag           = static_cast<std::uint32_t>(call % 0xFFFFFFFFull + 1);
  const std::int64_t words  = static_cast<std::int64_t>((bytes + 3) / 4);
  const int blocks          = all_reduce_blocks(words, comm.sm_count()); // a thread a word
  return launch_one_shot_push_all_reduce(elem, comm.world(), blocks, comm.stream(), buffers.input(), output, count,
                                         boxes, flag, static_cast<int>(call % 2));
}

Status two_shot_all_reduce(Communicator& comm, AllReduceBuffers& buffers, Elem elem, std::int64_t count, void* output)
{
  REDU_TRY(check_call(comm, buffers, elem, count));
  const std::int64_t packs = count * static_cast<std::int64_t>(size_of(elem)) / 16;
  const int blocks         = all_reduce_blocks((packs + comm.world() - 1) / comm.world(), comm.sm_count());
  const std::uint32_t epoch = buffers.epoch_;
  buffers.epoch_ += 3;
  return launch_two_shot_all_reduce(elem, comm.world(), blocks, comm.stream(), pointers(buffers.input_, comm.world()),
                                    pointers(buffers.scratch_, comm.world()), output, count,
                                    signals_of(buffers, comm), epoch);
}

Status nccl_all_reduce(Communicator& comm, const void* input, Elem elem, std::int64_t count, void* output)
{
  REDU_NCCL_TRY(ncclAllReduce(input, output, static_cast<std::size_t>(count), elem == Elem::f32 ? ncclFloat : ncclBfloat16,
                              ncclSum, comm.comm(), comm.stream()));
  return Status::success();
}

Status all_reduce(AllReduceVariant variant, Communicator& comm, AllReduceBuffers& buffers, Elem elem,
                  std::int64_t count, void* output)
{
  switch (variant)
  {
  case AllReduceVariant::one_shot: return one_shot_all_reduce(comm, buffers, elem, count, output);
  case AllReduceVariant::one_shot_push: return one_shot_push_all_reduce(comm, buffers, elem, count, output);
  case AllReduceVariant::two_shot: return two_shot_all_reduce(comm, buffers, elem, count, output);
  case AllReduceVariant::nccl: return nccl_all_reduce(comm, buffers.input(), elem, count, output);
  }
  return Status::invalid("unknown all-reduce variant");
}

namespace
{

__global__ void fill_signed_kernel(float* f32, std::uint16_t* bf16, std::int64_t count, std::uint32_t seed)
{
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    const float value = signed_pattern(seed, i);
    if (f32 != nullptr)
    {
      f32[i] = value;
    }
    else
    {
      bf16[i] = bf16_round(value);
    }
  }
}

__global__ void fill_unit_kernel(float* data, std::int64_t count, std::int64_t first_index, std::uint32_t seed)
{
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    data[i] = unit_pattern(seed, first_index + i);
  }
}

__global__ void __launch_bounds__(all_reduce_threads)
    pull_copy_kernel(uint4* __restrict__ destination, const uint4* __restrict__ source, std::int64_t packs)
{
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < packs;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    destination[i] = source[i];
  }
}

int fill_blocks(std::int64_t count)
{
  return static_cast<int>(std::clamp<std::int64_t>((count + 255) / 256, 1, 4096));
}

} // namespace

Status fill_signed_pattern(Elem elem, void* data, std::int64_t count, std::uint32_t seed, cudaStream_t stream)
{
  fill_signed_kernel<<<fill_blocks(count), 256, 0, stream>>>(elem == Elem::f32 ? static_cast<float*>(data) : nullptr,
                                                             elem == Elem::bf16 ? static_cast<std::uint16_t*>(data) : nullptr,
                                                             count, seed);
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

Status pull_copy(void* destination, const void* source, std::size_t bytes, int sm_count, cudaStream_t stream)
{
  const auto packs = static_cast<std::int64_t>(bytes / 16);
  pull_copy_kernel<<<all_reduce_blocks(packs, sm_count), all_reduce_threads, 0, stream>>>(
      static_cast<uint4*>(destination), static_cast<const uint4*>(source), packs);
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

Status fill_unit_pattern(float* data, std::int64_t count, std::int64_t first_index, std::uint32_t seed,
                         cudaStream_t stream)
{
  fill_unit_kernel<<<fill_blocks(count), 256, 0, stream>>>(data, count, first_index, seed);
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

} // namespace redu::multigpu
