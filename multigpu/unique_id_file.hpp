// The rendezvous of the ranks: NCCL's unique id (128 opaque bytes made by rank 0's ncclGetUniqueId) must
// reach every other rank before any of them can call ncclCommInitRank. Two ways, as launchers do it:
//   - NCCL_COMM_ID=<host:port> in every rank's environment: NCCL builds the id from the address itself
//     and rank 0 listens there (nothing to pass; works across hosts);
//   - a file on a filesystem every rank sees (REDU_NCCL_ID_FILE or --nccl_id_file): rank 0 writes it,
//     the others poll for it. scripts/multigpu_launch.sh gives each launch a fresh path.
// Rank 0 writes a temporary file next to the target and renames it: a rename is atomic, so a reader sees
// either no file or the whole id, never half of one. The path must be fresh for each launch: a reader
// that finds an old file joins a job that no longer exists (and NCCL's init then fails or times out).
#pragma once

#include "common/contract/status.hpp"

#include <cstddef>
#include <string>

namespace redu::multigpu
{

Status write_id_file(const std::string& path, const void* bytes, std::size_t size);

// Polls every 10 ms until the file exists with exactly `size` bytes, or `timeout_s` seconds have passed,
// then fails naming the path and what to check.
Status read_id_file(const std::string& path, void* bytes, std::size_t size, double timeout_s);

// REDU_NCCL_ID_TIMEOUT_S when set (a positive number), else 120 seconds.
double id_file_timeout_s();

} // namespace redu::multigpu
