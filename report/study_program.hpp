// The frame of a study program that writes one results file (accuracy_study, launch_cost_study): the GPU
// is measured first (no GPU: a clear refusal), the file is opened before the study runs (a bad path fails
// before minutes of work, not after), and the write is checked once the file is closed.
#pragma once

#include "common/contract/status.hpp"
#include "report/measured_gpu.hpp"

#include <functional>
#include <ostream>
#include <string>

namespace redu::report
{

// Runs `study` with the measured GPU and the open file at `out_path`; it writes the file's JSON and returns
// the rows written, for the closing line. The exit status: 0 written, 1 no GPU, a CUDA failure or an
// unwritable file (each reported on stderr under the program's name).
int run_study(const std::string& program, const std::string& out_path,
              const std::function<Status(const MeasuredGpu& gpu, std::ostream& out, std::size_t& rows)>& study);

} // namespace redu::report
