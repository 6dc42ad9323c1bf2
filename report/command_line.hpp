// The command line of the programs that write results files (reduce_bench, accuracy_study, pi_study).
// Each option is declared once, with where its value goes and what a valid value is; the parser and the
// --help text both come from those declarations, so they cannot disagree. Options are --key=value or a
// bare --flag; --help and -h work everywhere; an unknown option or a bad value is an error that names
// the argument and what a valid value looks like, because a typo must not silently run something else.
#pragma once

#include "report/option_values.hpp"

#include <optional>
#include <string>
#include <vector>

namespace redu::report
{

struct ParsedArguments
{
  bool help = false;                       // --help or -h was given: print usage() and exit 0
  std::string error;                       // non-empty: print it and a pointer to --help to stderr, exit 2
  std::vector<std::string> passed_through; // arguments another parser reads (see pass_through)
};

class CommandLine
{
public:
  explicit CommandLine(std::string program);

  // --key=VALUE_NAME. The help text may hold several lines; it should say the default.
  CommandLine& option(std::string key, std::string value_name, std::string help, ReadValue read);
  // The same, but the program cannot run without it.
  CommandLine& required_option(std::string key, std::string value_name, std::string help, ReadValue read);
  // --key alone sets the target to true.
  CommandLine& flag(std::string key, std::string help, bool& target);
  // Arguments that start with `prefix` belong to another parser (Google Benchmark's --benchmark_*):
  // collected untouched, in order.
  CommandLine& pass_through(std::string prefix, std::string help);

  ParsedArguments parse(int argc, const char* const* argv) const;
  std::string usage() const;
  // parse() and help_or_error() for a program with no other parser: the exit status when the program
  // must stop here, nothing when it should run.
  std::optional<int> early_exit(int argc, const char* const* argv) const;

private:
  struct Declaration
  {
    std::string key;
    std::string value_name; // empty for a flag
    std::string help;
    ReadValue read;
    bool required = false;
  };
  std::string read_one(const std::string& argument, std::vector<bool>& seen) const;

  std::string program_;
  std::vector<Declaration> declarations_;
  std::string pass_through_prefix_;
  std::string pass_through_help_;
};

// What every program does first with its parsed command line: for an error, "<program>: <error>" and a
// pointer to --help on stderr, exit status 2; for --help, the usage on stdout, exit status 0; otherwise nothing, and
// the program runs.
std::optional<int> help_or_error(const std::string& program, const std::string& error, bool help,
                                 const std::string& usage);

} // namespace redu::report
