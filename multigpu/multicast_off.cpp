#include "multigpu/multicast_off.hpp"

#include <cstdlib>
#include <string>

namespace redu::multigpu
{

EnvSet process_environment_setter()
{
  return [](const char* name, const char* value) { return ::setenv(name, value, 0) == 0; };
}

Status keep_multicast_off(const EnvLookup& env, const EnvSet& set)
{
  for (const RequiredSetting& setting : multicast_off_settings)
  {
    const char* value = env(setting.name);
    if (value == nullptr)
    {
      if (!set(setting.name, setting.value))
      {
        return Status::invalid(std::string("could not set ") + setting.name + "=" + setting.value);
      }
    }
    else if (std::string(value) != setting.value)
    {
      return Status::invalid(std::string(setting.name) + "=" + value + ": NVLink multicast must stay off on this "
                             + "machine; unset it or set " + setting.name + "=" + setting.value
                             + " (this program refuses to run otherwise)");
    }
  }
  return Status::success();
}

Status keep_multicast_off()
{
  return keep_multicast_off(process_environment(), process_environment_setter());
}

} // namespace redu::multigpu
