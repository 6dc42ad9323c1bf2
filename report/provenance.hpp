// Where a result came from, written with the same keys into every results file: the context of
// bench.json (Google Benchmark's custom context) and the "context" object of accuracy.json and pi.json,
// so one reader (notebooks/results_loader.py) checks them all alike.
#pragma once

#include "report/measured_gpu.hpp"

#include <string>
#include <utility>
#include <vector>

namespace redu::report
{

using ContextEntry = std::pair<std::string, std::string>;

// The keys common to every results file, in this order:
//   program, code_id                       what produced the file (code_id from scripts/code_id.sh)
//   gpu_name, gpu_slug, compute_capability, sm_count, l2_bytes,
//   memory_clock_khz, bus_width_bits, peak_gbps, peak_source, copy_gbps   where it ran (peak_source:
//                                          clock x bus width, or the copy bandwidth where the device
//                                          reports neither: report/measured_gpu.hpp)
//   driver_version, cuda_runtime_version, cccl_version, build_type  with what software
//   cuda_architectures, device_code        what was compiled (CMAKE_CUDA_ARCHITECTURES) and the code the
//                                          GPU ran of it ("sm_90 SASS", or "compute_80 PTX, JIT-compiled
//                                          by the driver for sm_90")
//   tuning                                 the launch-shape table read (tuning/<gpu-slug>.txt), values included
// Each program writes its own keys after these:
//   reduce_bench:   l2_mode, timing, sweep
//   accuracy_study: data, reference, repeats
//   pi_study:       reference_pi, warmups, repeats, seed_warmups, seed_repeats, timing, errors
// Values are text, as Google Benchmark's context holds only text: a reader parses every file the same way.
std::vector<ContextEntry> provenance(const std::string& program, const std::string& code_id, const MeasuredGpu& gpu);

} // namespace redu::report
