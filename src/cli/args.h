// Args: strict command-line parsing for the tilesched subcommands.
//
// Each subcommand declares its options (name, value placeholder, help line, optional short
// alias such as -o) and how many positional arguments it takes; Parse() rejects unknown
// options and missing values with a one-line message, and HelpText() prints the usage that
// `--help` shows. ParseCommandLine() is the preamble every command shares: parse, report a
// usage error, or print the help.
//
// The parser is hand-written rather than CLI11 (Debian libcli11-dev): the subcommands are a
// table in main.cc, each command's options a list here, and the strictness the tests pin
// (unknown option, missing value, positional count, the exact one-line messages) would have
// to be re-created on top of CLI11's own messages; the one thing missing, short aliases, is
// a field of Option.
#ifndef TILESCHED_CLI_ARGS_H_
#define TILESCHED_CLI_ARGS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "exit_codes.h"
#include "tilesched/cost_model.h"
#include "tilesched/status.h"

namespace tilesched::cli {

struct Option {
  Option(std::string name_, std::string value_name_, std::string help_, std::string alias_ = "")
      : name(std::move(name_)),
        value_name(std::move(value_name_)),
        help(std::move(help_)),
        alias(std::move(alias_)) {}

  std::string name;        // without the leading "--"
  std::string value_name;  // empty: a boolean flag
  std::string help;
  std::string alias;       // a short form such as "-o"; empty: none
};

// Upper bound on PROBLEM.json arguments of the commands that take many (compare, results), only
// so that the usage error can state a range.
inline constexpr int kMaxProblems = 1000;

class Args {
 public:
  const std::string& command() const { return command_; }
  Args(std::string command, std::string usage, std::string description,
       std::vector<Option> options, int min_positional, int max_positional);

  // Parses argv[first..argc). `--help` / `-h` sets help() and stops checking.
  Status Parse(int argc, char** argv, int first);

  bool help() const { return help_; }
  std::string HelpText() const;
  const std::vector<std::string>& positional() const { return positional_; }
  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  std::string Get(const std::string& name, const std::string& fallback = "") const;
  Result<int64_t> GetInt(const std::string& name, int64_t fallback) const;
  Result<double> GetDouble(const std::string& name, double fallback) const;

 private:
  const Option* Find(const std::string& name) const;

  std::string command_, usage_, description_;
  std::vector<Option> options_;
  int min_positional_, max_positional_;
  bool help_ = false;
  std::vector<std::string> positional_;
  std::map<std::string, std::string> values_;
};

// Parses argv[first..) into `args`. Returns nullopt when the command should go on, or the exit
// code to return: kExitOk after printing the help, kExitUsage after reporting the error.
std::optional<int> ParseCommandLine(Args& args, int argc, char** argv, int first);

// The cost-model switches every command accepts (SPEC.md section 7).
std::vector<Option> ModeOptions();
// Reads --rules, --matmul-reduction and --k-limit over `base` (defaults or a config's modes).
Result<CostModes> ModesFromArgs(const Args& args, CostModes base = {});

// Checks, before any work, that each of the named output options that is given can be
// written (CheckOutputPath): a directory or a missing folder fails at once, not after a run.
Status CheckOutputOptions(const Args& args, const std::vector<std::string>& names);

// Prints each reader's warning as "tilesched <command>: warning: <text>" on stderr.
void PrintWarnings(const std::string& command, const std::vector<std::string>& warnings);

// Prints "tilesched <command>: <message>" to stderr and returns `code`.
int Fail(const std::string& command, const std::string& message, int code);


}  // namespace tilesched::cli

#endif  // TILESCHED_CLI_ARGS_H_
