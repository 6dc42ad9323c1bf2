#include "report/measured_gpu.hpp"

#include "common/host/device_buffer.hpp"
#include "report/event_timer.hpp"

#include <vector>

namespace redu::report
{
namespace
{

Status measure_copy_gbps(cudaStream_t stream, double& gbps)
{
  const std::size_t bytes = std::size_t{1} << 30;
  DeviceBuffer source, destination;
  REDU_TRY(source.allocate(bytes));
  REDU_TRY(destination.allocate(bytes));
  REDU_CUDA_TRY(cudaMemsetAsync(source.data(), 1, bytes, stream));
  const auto copy = [&] {
    REDU_CUDA_TRY(cudaMemcpyAsync(destination.data(), source.data(), bytes, cudaMemcpyDeviceToDevice, stream));
    return Status::success();
  };
  EventTimer timer;
  REDU_TRY(timer.init());
  std::vector<double> samples_ms;
  REDU_TRY(timer.time_calls(stream, 2, 10, copy, samples_ms));
  gbps = 2.0 * static_cast<double>(bytes) / (median(samples_ms) * 1e-3) / 1e9;
  return Status::success();
}

} // namespace

Status measure_gpu(cudaStream_t stream, MeasuredGpu& gpu)
{
  if (const std::string reason = no_gpu_reason(); !reason.empty())
  {
    return Status::invalid(reason);
  }
  REDU_TRY(query_device(0, gpu.device));
  REDU_TRY(measure_copy_gbps(stream, gpu.copy_gbps));
  gpu.peak_gbps   = gpu.device.peak_gbps();
  gpu.peak_source = "2 x memory clock x bus width / 8";
  if (gpu.peak_gbps <= 0)
  {
    gpu.peak_gbps   = gpu.copy_gbps;
    gpu.peak_source = "the measured copy bandwidth: the device reports memory clock " + std::to_string(gpu.device.memory_clock_khz)
                    + " kHz and bus width " + std::to_string(gpu.device.bus_width_bits) + " bits";
  }
  return Status::success();
}

} // namespace redu::report
