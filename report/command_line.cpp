#include "report/command_line.hpp"

#include <algorithm>
#include <iostream>
#include <sstream>

namespace redu::report
{

CommandLine::CommandLine(std::string program)
    : program_(std::move(program))
{}

CommandLine& CommandLine::option(std::string key, std::string value_name, std::string help, ReadValue read)
{
  declarations_.push_back({std::move(key), std::move(value_name), std::move(help), std::move(read), false});
  return *this;
}

CommandLine& CommandLine::required_option(std::string key, std::string value_name, std::string help, ReadValue read)
{
  declarations_.push_back({std::move(key), std::move(value_name), std::move(help), std::move(read), true});
  return *this;
}

CommandLine& CommandLine::flag(std::string key, std::string help, bool& target)
{
  ReadValue set = [&target](const std::string&) -> std::string {
    target = true;
    return "";
  };
  declarations_.push_back({std::move(key), "", std::move(help), std::move(set), false});
  return *this;
}

CommandLine& CommandLine::pass_through(std::string prefix, std::string help)
{
  pass_through_prefix_ = std::move(prefix);
  pass_through_help_   = std::move(help);
  return *this;
}

// Reads one of our own arguments; returns the error, empty when it was read.
std::string CommandLine::read_one(const std::string& argument, std::vector<bool>& seen) const
{
  const std::size_t equals = argument.find('=');
  const std::string key    = argument.substr(0, equals);
  const auto declaration   = std::find_if(declarations_.begin(), declarations_.end(),
                                          [&](const Declaration& d) { return d.key == key; });
  if (declaration == declarations_.end())
  {
    return "unknown option: " + argument;
  }
  seen[static_cast<std::size_t>(declaration - declarations_.begin())] = true;
  const bool is_flag = declaration->value_name.empty();
  if (is_flag && equals != std::string::npos)
  {
    return "option " + key + " takes no value: " + argument;
  }
  const std::string value = equals == std::string::npos ? "" : argument.substr(equals + 1);
  if (!is_flag && value.empty())
  {
    return "option " + key + " needs a value: " + key + "=" + declaration->value_name;
  }
  if (const std::string expected = declaration->read(value); !expected.empty())
  {
    return "bad value in option " + argument + ": expected " + expected;
  }
  return "";
}

ParsedArguments CommandLine::parse(int argc, const char* const* argv) const
{
  ParsedArguments parsed;
  std::vector<bool> seen(declarations_.size(), false);
  for (int i = 1; i < argc; ++i)
  {
    const std::string argument = argv[i];
    if (!pass_through_prefix_.empty() && argument.rfind(pass_through_prefix_, 0) == 0)
    {
      parsed.passed_through.push_back(argument);
    }
    else if (argument == "--help" || argument == "-h")
    {
      parsed.help = true;
    }
    else
    {
      parsed.error = read_one(argument, seen);
      if (!parsed.error.empty())
      {
        return parsed;
      }
    }
  }
  for (std::size_t i = 0; i < declarations_.size() && !parsed.help; ++i)
  {
    if (declarations_[i].required && !seen[i])
    {
      parsed.error = "missing option " + declarations_[i].key + "=" + declarations_[i].value_name;
      return parsed;
    }
  }
  return parsed;
}

std::string CommandLine::usage() const
{
  std::string synopsis = "usage: " + program_;
  std::vector<std::pair<std::string, std::string>> rows; // "--key=VALUE", help
  for (const Declaration& d : declarations_)
  {
    const std::string form = d.value_name.empty() ? d.key : d.key + "=" + d.value_name;
    if (d.required)
    {
      synopsis += " " + form;
    }
    rows.emplace_back(form, d.help + (d.required ? " (required)" : ""));
  }
  rows.emplace_back("--help", "print this help and exit");
  synopsis += " [options]";
  if (!pass_through_prefix_.empty())
  {
    synopsis += " [" + pass_through_prefix_ + "* flags]";
  }

  std::size_t width = 0;
  for (const auto& [form, help] : rows)
  {
    width = std::max(width, form.size());
  }
  // Every line of the help starts in the same column, two spaces right of the longest form.
  const std::size_t column = 2 + width + 2;
  std::string text         = synopsis + "\n";
  for (const auto& [form, help] : rows)
  {
    std::stringstream lines(help);
    std::string line;
    std::string left = "  " + form;
    while (std::getline(lines, line))
    {
      text += left + std::string(column - left.size(), ' ') + line + "\n";
      left.clear();
    }
  }
  if (!pass_through_help_.empty())
  {
    text += pass_through_help_ + "\n";
  }
  return text;
}

std::optional<int> CommandLine::early_exit(int argc, const char* const* argv) const
{
  const ParsedArguments parsed = parse(argc, argv);
  return help_or_error(program_, parsed.error, parsed.help, usage());
}

std::optional<int> help_or_error(const std::string& program, const std::string& error, bool help,
                                 const std::string& usage)
{
  if (!error.empty())
  {
    // The error alone, and where the options are: a page of usage after every typo buries the error.
    std::cerr << program << ": " << error << "\n" << program << " --help lists the options\n";
    return 2;
  }
  if (help)
  {
    std::cout << usage;
    return 0;
  }
  return std::nullopt;
}

} // namespace redu::report
