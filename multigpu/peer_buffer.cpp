#include "multigpu/peer_buffer.hpp"

#include <unistd.h>

#include <cstring>
#include <vector>

namespace redu::multigpu
{
namespace
{

// What each rank tells the others about its buffer.
struct Record
{
  cudaIpcMemHandle_t handle; // 64 bytes: for a process that is not this one
  std::uint64_t address;     // for a thread of this process
  std::int32_t device;
  std::int32_t pid;
};

} // namespace

PeerBuffer::~PeerBuffer()
{
  close_mappings();
  if (bytes_ != 0 && peers_[rank_] != nullptr)
  {
    cudaSetDevice(device_);
    cudaFree(peers_[rank_]);
  }
}

void PeerBuffer::close_mappings()
{
  for (int p = 0; p < world_; ++p)
  {
    if (opened_by_ipc_[p])
    {
      cudaIpcCloseMemHandle(peers_[p]);
      opened_by_ipc_[p] = false;
      peers_[p]         = nullptr;
    }
  }
}

Status PeerBuffer::allocate(Communicator& comm, std::size_t bytes)
{
  if (bytes_ != 0)
  {
    return Status::invalid("PeerBuffer::allocate: already allocated");
  }
  if (comm.world() > max_ranks)
  {
    return Status::invalid("the hand-written all-reduce supports at most " + std::to_string(max_ranks) + " GPUs");
  }
  rank_   = comm.rank();
  world_  = comm.world();
  device_ = comm.device();
  void* local = nullptr;
  REDU_CUDA_TRY(cudaMalloc(&local, bytes));
  peers_[rank_] = local;
  bytes_        = bytes;
  REDU_CUDA_TRY(cudaMemset(local, 0, bytes));
  REDU_CUDA_TRY(cudaDeviceSynchronize()); // zeros in place before any peer can see the buffer

  Record mine{};
  REDU_CUDA_TRY(cudaIpcGetMemHandle(&mine.handle, local));
  mine.address = reinterpret_cast<std::uintptr_t>(local);
  mine.device  = device_;
  mine.pid     = static_cast<std::int32_t>(::getpid());

  DeviceBuffer records;
  REDU_TRY(records.allocate(sizeof(Record) * static_cast<std::size_t>(world_)));
  auto* slots = records.as<unsigned char>();
  REDU_CUDA_TRY(cudaMemcpyAsync(slots + sizeof(Record) * rank_, &mine, sizeof mine, cudaMemcpyHostToDevice,
                                comm.stream()));
  REDU_NCCL_TRY(ncclAllGather(slots + sizeof(Record) * rank_, slots, sizeof(Record), ncclUint8, comm.comm(),
                              comm.stream()));
  std::vector<Record> all(static_cast<std::size_t>(world_));
  REDU_CUDA_TRY(cudaMemcpyAsync(all.data(), slots, sizeof(Record) * all.size(), cudaMemcpyDeviceToHost, comm.stream()));
  REDU_CUDA_TRY(cudaStreamSynchronize(comm.stream()));

  for (int p = 0; p < world_; ++p)
  {
    if (p == rank_)
    {
      continue;
    }
    if (all[p].pid == mine.pid)
    {
      int can_access = 0;
      REDU_CUDA_TRY(cudaDeviceCanAccessPeer(&can_access, device_, all[p].device));
      if (can_access == 0)
      {
        return Status::invalid("GPU " + std::to_string(device_) + " cannot address GPU " + std::to_string(all[p].device)
                               + " directly (no NVLink or PCIe peer access): the hand-written all-reduce needs it");
      }
      const cudaError_t enabled = cudaDeviceEnablePeerAccess(all[p].device, 0);
      if (enabled != cudaSuccess && enabled != cudaErrorPeerAccessAlreadyEnabled)
      {
        return Status::from_cuda(enabled, "cudaDeviceEnablePeerAccess");
      }
      (void)cudaGetLastError(); // clear "already enabled"
      peers_[p] = reinterpret_cast<void*>(static_cast<std::uintptr_t>(all[p].address));
    }
    else
    {
      void* mapped = nullptr;
      REDU_CUDA_TRY(cudaIpcOpenMemHandle(&mapped, all[p].handle, cudaIpcMemLazyEnablePeerAccess));
      peers_[p]         = mapped;
      opened_by_ipc_[p] = true;
    }
  }
  return Status::success();
}

Status PeerBuffer::release(Communicator& comm)
{
  close_mappings();
  REDU_TRY(comm.barrier()); // nobody frees memory a peer still maps
  if (bytes_ != 0)
  {
    REDU_CUDA_TRY(cudaFree(peers_[rank_]));
  }
  peers_ = {};
  bytes_ = 0;
  return Status::success();
}

} // namespace redu::multigpu
