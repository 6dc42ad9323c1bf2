// The GPU a results file describes: device 0 as the driver reports it, and the bandwidth a program can
// actually reach on it, the yardstick beside the theoretical peak (a device-to-device copy of 1 GiB,
// bytes read plus bytes written over the median time of 10 copies after 2 warm-ups).
#pragma once

#include "common/contract/status.hpp"
#include "common/host/device_info.hpp"

#include <cuda_runtime_api.h>

#include <string>

namespace redu::report
{

struct MeasuredGpu
{
  DeviceInfo device;
  double copy_gbps = 0;
  // The theoretical peak, 2 x memory clock x bus width / 8, where the device reports both; a GPU that
  // reports either as zero (some new and integrated GPUs do) gets the measured copy bandwidth instead, and
  // peak_source says which it is, so % of peak is never a division by zero or a made-up figure.
  double peak_gbps = 0;
  std::string peak_source;
};

// Fails with the reason when no usable GPU is present. Allocates 2 GiB while it measures, on `stream`.
Status measure_gpu(cudaStream_t stream, MeasuredGpu& gpu);

} // namespace redu::report
