// A device buffer every rank can address: each rank allocates its own, then they swap addresses, so
// rank r holds a pointer to every rank's buffer that is valid on its own GPU. This is how the
// hand-written all-reduce reads its peers over NVLink: plain loads and stores, no copy engine, no NCCL.
//
// The swap is one ncclAllGather of a small record per rank. Between processes the record carries a
// CUDA IPC handle (cudaIpcGetMemHandle), which the receiver opens (cudaIpcOpenMemHandle, peer access
// enabled lazily); within one process (one thread per GPU) it carries the pointer itself, and peer access
// is enabled with cudaDeviceEnablePeerAccess. The record's process id says which. No multicast object,
// no NVLS: only point-to-point mappings.
#pragma once

#include "common/contract/status.hpp"
#include "multigpu/communicator.hpp"

#include <array>
#include <cstddef>

namespace redu::multigpu
{

class PeerBuffer
{
public:
  PeerBuffer() = default;
  PeerBuffer(const PeerBuffer&)            = delete;
  PeerBuffer& operator=(const PeerBuffer&) = delete;
  ~PeerBuffer();

  // Collective: every rank calls it with the same `bytes`. Zero-fills the local buffer before the swap,
  // so a peer never sees uninitialised flags.
  Status allocate(Communicator& comm, std::size_t bytes);
  // Collective: closes the peers' mappings, waits for every rank to have done so, frees the local buffer.
  Status release(Communicator& comm);

  void* local() const { return peers_[rank_]; }
  // Rank p's buffer as this rank's GPU addresses it (p == own rank: the local buffer).
  void* peer(int p) const { return peers_[p]; }
  const std::array<void*, max_ranks>& peers() const { return peers_; }
  std::size_t bytes() const { return bytes_; }

private:
  void close_mappings();

  std::array<void*, max_ranks> peers_{};
  std::array<bool, max_ranks> opened_by_ipc_{};
  int rank_          = 0;
  int world_         = 0;
  int device_        = 0;
  std::size_t bytes_ = 0;
};

} // namespace redu::multigpu
