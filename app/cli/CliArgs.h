#pragma once
// A small command-line parser for tcstudio-cli: one positional file and named options,
// written `--name value` or `--name=value`. Unknown options are usage errors (exit 2).
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tcs::cli {

enum ExitCode { kSuccess = 0, kUserError = 1, kUsageError = 2 };

struct OptionSpec {
  std::string name;       // without the leading "--"
  bool takes_value;       // --size M=3
  bool repeatable = false;
  bool optional_value = false;  // --random or --random=SEED
};

struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> options;  // flags map to {""}
  bool has(const std::string& n) const { return options.count(n) > 0; }
  std::optional<std::string> get(const std::string& n) const;
  std::vector<std::string> all(const std::string& n) const;
};

// Returns the parsed arguments, or an error message (a usage error).
std::variant<ParsedArgs, std::string> parse_args(const std::vector<std::string>& args,
                                                 const std::vector<OptionSpec>& specs);

// Parses a subcommand's arguments (a --help option is added). Prints the help and returns
// kSuccess for --help, prints the problem and the help and returns kUsageError on misuse;
// otherwise returns the parsed arguments.
std::variant<ParsedArgs, int> parse_command(const std::vector<std::string>& args, std::vector<OptionSpec> specs,
                                            const char* command, const char* help);

// Splits "NAME=VALUE"; nullopt if there is no '=' or the name is empty.
std::optional<std::pair<std::string, std::string>> split_assignment(const std::string& s);

}  // namespace tcs::cli
