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

// A device's table and where it came from (for the results' provenance).
struct LoadedTable
{
  TuningTable values;
  std::string source;
};

// The table for one device: REDU_TUNING_FILE, else tuning/<gpu-slug>.txt in the source tree, else none.
Status load_table(int device, LoadedTable& table)
{
  std::string path;
  std::string shown; // the path as the provenance names it
  if (const char* file = std::getenv("REDU_TUNING_FILE"); file != nullptr)
  {
    path  = file;
    shown = "REDU_TUNING_FILE=" + path;
  }
  else
  {
    cudaDeviceProp props{};
    REDU_CUDA_TRY(cudaGetDeviceProperties(&props, device));
    const std::string file_name = gpu_slug(props.name) + ".txt";
    shown                       = "tuning/" + file_name;
    path                        = std::string(REDU_TUNING_DIR) + "/" + file_name;
  }
  table.source = "none (the documented defaults)";
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
  if (const Status s = parse_tuning_table(text.str(), table.values); !s.ok())
  {
    return Status::invalid(path + ": " + s.message());
  }
  table.source = shown;
  return Status::success();
}

// The current device's table, loaded on first use and kept.
Status current_table(const LoadedTable*& table)
{
  static std::mutex mutex;
  static std::map<int, LoadedTable> tables;
  int device = 0;
  REDU_CUDA_TRY(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  auto found = tables.find(device);
  if (found == tables.end())
  {
    LoadedTable loaded;
    REDU_TRY(load_table(device, loaded));
    found = tables.emplace(device, std::move(loaded)).first;
  }
  table = &found->second; // entries of a std::map never move
  return Status::success();
}

} // namespace

Status tuned_value(const std::string& name, long long fallback, long long& value)
{
  const LoadedTable* table = nullptr;
  REDU_TRY(current_table(table));
  const auto entry = table->values.find(name);
  value            = entry == table->values.end() ? fallback : entry->second;
  return Status::success();
}

Status tuning_in_use(std::string& description)
{
  const LoadedTable* table = nullptr;
  REDU_TRY(current_table(table));
  description           = table->source;
  const char* separator = ": ";
  for (const auto& [name, value] : table->values)
  {
    description += separator + name + " " + std::to_string(value);
    separator = ", ";
  }
  return Status::success();
}

} // namespace redu
