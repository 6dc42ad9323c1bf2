// How an option's value is read: each reader knows what a valid value looks like, so an error can say
// it ("expected an integer in [0, 40]"). The command line (command_line.hpp) calls them.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace redu::report
{

// Reads one option's value into its target. Returns empty when the value is valid, otherwise what a
// valid value looks like ("an integer in [0, 40]"), which the error message quotes.
using ReadValue = std::function<std::string(const std::string& value)>;

// Any text (the parser has already refused an empty value).
ReadValue text(std::string& target);
ReadValue integer_in(int low, int high, int& target);
// Comma-separated names, not checked here (the caller knows which exist): --impl=a,b.
ReadValue name_list(std::vector<std::string>& target);

// Values chosen by name: {{"cold", true}, {"hot", false}} reads --l2=hot as false.
template <class T>
using Choices = std::vector<std::pair<std::string, T>>;

// "a, b, c": the names a message offers.
template <class T>
std::string names_of(const Choices<T>& choices)
{
  std::string names;
  for (const auto& [name, value] : choices)
  {
    names += (names.empty() ? "" : ", ") + name;
  }
  return names;
}

// "f32,i32" -> {"f32", "i32"}; empty items are dropped.
std::vector<std::string> split_commas(const std::string& text);

// The value called `name`, or null when no choice has that name.
template <class T>
const T* find_choice(const Choices<T>& choices, const std::string& name)
{
  for (const auto& [choice_name, value] : choices)
  {
    if (choice_name == name)
    {
      return &value;
    }
  }
  return nullptr;
}

template <class T>
ReadValue one_of(Choices<T> choices, T& target)
{
  return [choices, &target](const std::string& value) -> std::string {
    const T* choice = find_choice(choices, value);
    if (choice == nullptr)
    {
      return "one of " + names_of(choices);
    }
    target = *choice;
    return "";
  };
}

// A comma-separated list of choices: --types=f32,i32.
template <class T>
ReadValue list_of(Choices<T> choices, std::vector<T>& target)
{
  return [choices, &target](const std::string& value) -> std::string {
    const std::string expected = "a comma-separated list of " + names_of(choices);
    std::vector<T> chosen;
    for (const std::string& item : split_commas(value))
    {
      const T* choice = find_choice(choices, item);
      if (choice == nullptr)
      {
        return expected;
      }
      chosen.push_back(*choice);
    }
    if (chosen.empty())
    {
      return expected;
    }
    target = chosen;
    return "";
  };
}

} // namespace redu::report
