#include "multigpu/communicator.hpp"

#include "multigpu/unique_id_file.hpp"

#include <cstdlib>

namespace redu::multigpu
{

Status from_nccl(ncclResult_t result, const char* call)
{
  return Status::invalid(std::string(call) + ": " + ncclGetErrorString(result) + " (" + ncclGetLastError(nullptr) + ")");
}

std::string nccl_version_text()
{
  int version = 0;
  ncclGetVersion(&version);
  const auto text = [](int code) {
    // NCCL_VERSION(X,Y,Z) = X*10000 + Y*100 + Z since 2.9.
    return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
  };
  return text(version) + " (compiled against " + text(NCCL_VERSION_CODE) + ")";
}

Communicator::~Communicator()
{
  if (comm_ != nullptr)
  {
    ncclCommDestroy(comm_);
  }
  if (stream_ != nullptr)
  {
    cudaStreamDestroy(stream_);
  }
}

Status Communicator::init_process(const RankInfo& info, const std::string& id_file)
{
  rank_   = info.rank;
  world_  = info.world;
  device_ = info.local_rank;
  REDU_CUDA_TRY(cudaSetDevice(device_));
  ncclUniqueId id{};
  const char* comm_id = std::getenv("NCCL_COMM_ID");
  if (comm_id != nullptr && *comm_id != '\0')
  {
    REDU_NCCL_TRY(ncclGetUniqueId(&id)); // made from the address: the same on every rank
  }
  else if (id_file.empty())
  {
    return Status::invalid("no rendezvous for the ranks: set NCCL_COMM_ID=<host:port> or REDU_NCCL_ID_FILE="
                           "<fresh path> (or pass --nccl_id_file), or start the ranks with scripts/multigpu_launch.sh");
  }
  else if (rank_ == 0)
  {
    REDU_NCCL_TRY(ncclGetUniqueId(&id));
    REDU_TRY(write_id_file(id_file, &id, sizeof id));
  }
  else
  {
    REDU_TRY(read_id_file(id_file, &id, sizeof id, id_file_timeout_s()));
  }
  return finish_init(id);
}

Status Communicator::init_thread(int rank, int world, int device, const ncclUniqueId& id)
{
  rank_   = rank;
  world_  = world;
  device_ = device;
  REDU_CUDA_TRY(cudaSetDevice(device_));
  return finish_init(id);
}

Status Communicator::finish_init(const ncclUniqueId& id)
{
  REDU_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  REDU_TRY(scratch_.allocate(8 * sizeof(double)));
  REDU_NCCL_TRY(ncclCommInitRank(&comm_, world_, id, rank_));
  int sms = 0;
  REDU_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_));
  double smallest = 0;
  REDU_TRY(max_over_ranks(-static_cast<double>(sms), smallest));
  sm_count_ = static_cast<int>(-smallest);
  return Status::success();
}

Status Communicator::enqueue_barrier()
{
  REDU_NCCL_TRY(ncclAllReduce(scratch_.data(), scratch_.data(), 1, ncclInt32, ncclSum, comm_, stream_));
  return Status::success();
}

Status Communicator::barrier()
{
  REDU_TRY(enqueue_barrier());
  REDU_CUDA_TRY(cudaStreamSynchronize(stream_));
  return Status::success();
}

Status Communicator::max_over_ranks(double value, double& max)
{
  auto* slot = scratch_.as<double>() + 1;
  REDU_CUDA_TRY(cudaMemcpyAsync(slot, &value, sizeof value, cudaMemcpyHostToDevice, stream_));
  REDU_NCCL_TRY(ncclAllReduce(slot, slot, 1, ncclDouble, ncclMax, comm_, stream_));
  REDU_CUDA_TRY(cudaMemcpyAsync(&max, slot, sizeof max, cudaMemcpyDeviceToHost, stream_));
  REDU_CUDA_TRY(cudaStreamSynchronize(stream_));
  return Status::success();
}

} // namespace redu::multigpu
