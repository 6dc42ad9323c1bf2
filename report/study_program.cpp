#include "report/study_program.hpp"

#include <fstream>
#include <iostream>

namespace redu::report
{

int run_study(const std::string& program, const std::string& out_path,
              const std::function<Status(const MeasuredGpu& gpu, std::ostream& out, std::size_t& rows)>& study)
{
  const auto fail = [&](const std::string& message) {
    std::cerr << program << ": " << message << "\n";
    return 1;
  };
  MeasuredGpu gpu;
  if (const Status s = measure_gpu(nullptr, gpu); !s.ok())
  {
    return fail("cannot run: " + s.message());
  }
  std::ofstream out(out_path);
  if (!out)
  {
    return fail("cannot open " + out_path + " for writing");
  }
  std::size_t rows = 0;
  if (const Status s = study(gpu, out, rows); !s.ok())
  {
    return fail(s.message());
  }
  out.close();
  if (!out)
  {
    return fail("cannot write " + out_path);
  }
  std::cout << program << ": wrote " << rows << " rows to " << out_path << "\n";
  return 0;
}

} // namespace redu::report
