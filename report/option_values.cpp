#include "report/option_values.hpp"

#include <sstream>
#include <stdexcept>

namespace redu::report
{

std::vector<std::string> split_commas(const std::string& text)
{
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ','))
  {
    if (!item.empty())
    {
      items.push_back(item);
    }
  }
  return items;
}

ReadValue text(std::string& target)
{
  return [&target](const std::string& value) -> std::string {
    target = value;
    return "";
  };
}

ReadValue integer_in(int low, int high, int& target)
{
  return [low, high, &target](const std::string& value) -> std::string {
    const std::string expected = "an integer in [" + std::to_string(low) + ", " + std::to_string(high) + "]";
    try
    {
      std::size_t used = 0;
      const int parsed = std::stoi(value, &used);
      if (used != value.size() || parsed < low || parsed > high)
      {
        return expected;
      }
      target = parsed;
      return "";
    }
    catch (const std::logic_error&) // not a number, or out of int's range
    {
      return expected;
    }
  };
}

ReadValue name_list(std::vector<std::string>& target)
{
  return [&target](const std::string& value) -> std::string {
    std::vector<std::string> names = split_commas(value);
    if (names.empty())
    {
      return "a comma-separated list of names";
    }
    target = std::move(names);
    return "";
  };
}

} // namespace redu::report
