#include "multigpu/unique_id_file.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

namespace redu::multigpu
{

Status write_id_file(const std::string& path, const void* bytes, std::size_t size)
{
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char*>(bytes), static_cast<std::streamsize>(size));
    out.close();
    if (!out)
    {
      std::remove(temporary.c_str());
      return Status::invalid("cannot write the NCCL id to " + temporary);
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
  {
    std::remove(temporary.c_str());
    return Status::invalid("cannot rename " + temporary + " to " + path);
  }
  return Status::success();
}

Status read_id_file(const std::string& path, void* bytes, std::size_t size, double timeout_s)
{
  const auto start = std::chrono::steady_clock::now();
  for (;;)
  {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (in && static_cast<std::size_t>(in.tellg()) == size)
    {
      in.seekg(0);
      in.read(static_cast<char*>(bytes), static_cast<std::streamsize>(size));
      if (in)
      {
        return Status::success();
      }
    }
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited >= timeout_s)
    {
      return Status::invalid("no NCCL id at " + path + " after " + std::to_string(static_cast<int>(waited))
                             + " s: is rank 0 running, with the same REDU_NCCL_ID_FILE? (REDU_NCCL_ID_TIMEOUT_S "
                             + "sets the wait)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

double id_file_timeout_s()
{
  if (const char* text = std::getenv("REDU_NCCL_ID_TIMEOUT_S"))
  {
    const double value = std::atof(text);
    if (value > 0)
    {
      return value;
    }
  }
  return 120.0;
}

} // namespace redu::multigpu
