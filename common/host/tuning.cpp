#include "common/host/tuning.hpp"

#include "common/host/device_info.hpp"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

namespace redu
{

Status parse_tuning_table(const std::string& text, TuningTable& table)
{
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number)
  {
    line = line.substr(0, line.find('#'));
    std::istringstream fields(line);
    std::string name, extra;
    long long value = 0;
    if (!(fields >> name))
    {
      continue; // blank or comment only
    }
    if (!(fields >> value) || (fields >> extra))
    {
      return Status::invalid("tuning table line " + std::to_string(number) + ": expected \"name value\", got \""
                             + line + "\"");
    }
    table[name] = value;
  }
  return Status::success();
}

namespace
{

// The table for one device: REDU_TUNING_FILE, else tuning/<gpu-slug>.txt in the source tree, else none.
Status load_table(int device, TuningTable& table)
{
  std::string path;
  if (const char* file = std::getenv("REDU_TUNING_FILE"); file != nullptr)
  {
    path = file;
  }
  else
  {
    cudaDeviceProp props{};
    REDU_CUDA_TRY(cudaGetDeviceProperties(&props, device));
    path = std::string(REDU_TUNING_DIR) + "/" + gpu_slug(props.name) + ".txt";
  }
  if (path.empty())
  {
    return Status::success();
  }
  std::ifstream in(path);
  if (!in)
  {
    if (std::getenv("REDU_TUNING_FILE") != nullptr)
    {
      return Status::invalid("REDU_TUNING_FILE=" + path + " cannot be read");
    }
    return Status::success(); // no table for this GPU model: the documented defaults
  }
  std::stringstream text;
  text << in.rdbuf();
  if (const Status s = parse_tuning_table(text.str(), table); !s.ok())
  {
    return Status::invalid(path + ": " + s.message());
  }
  return Status::success();
}

} // namespace

Status tuned_value(const std::string& name, long long fallback, long long& value)
{
  static std::mutex mutex;
  static std::map<int, TuningTable> tables;
  int device = 0;
  REDU_CUDA_TRY(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  auto found = tables.find(device);
  if (found == tables.end())
  {
    TuningTable table;
    REDU_TRY(load_table(device, table));
    found = tables.emplace(device, std::move(table)).first;
  }
  const auto entry = found->second.find(name);
  value            = entry == found->second.end() ? fallback : entry->second;
  return Status::success();
}

} // namespace redu
