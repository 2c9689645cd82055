#pragma once
// What the subcommands share: turn --entry, --size and --input into the compiler's one
// kernel set-up (kernel/KernelSetup.h, which documents the sizes' precedence), print its
// error if any, and keep the supplied tensors.
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cli/CliArgs.h"
#include "kernel/KernelSetup.h"
#include "lang/Frontend.h"
#include "lang/Shapes.h"
#include "options/MappingOptions.h"
#include "runtime/Interpreter.h"

namespace tcs::cli {

struct CliKernel : KernelSetup {
  TensorMap supplied;  // from --input
};

// The file read and checked; on errors prints them (or why it cannot be read) and returns
// the exit code.
std::variant<std::shared_ptr<const CheckedFile>, int> checked_file(const std::string& path);

// NAME=INT items (of --size and the like) into sizes; nullopt after printing the usage
// error for the first that is not one.
std::optional<SizeMap> parse_sizes(const std::vector<std::string>& items, const char* command, const char* flag);

// On failure prints the problem to stderr and returns the exit code to use.
std::variant<CliKernel, int> kernel_setup(const ParsedArgs& args, const char* command);

// --options FILE.json, --preset NAME or --best (the tuning cache's best for this kernel on
// this machine, saying on stderr which record it used or that it fell back to the
// default); default: the "default" preset for the kernel.
std::variant<MappingOptions, int> mapping_options_from_args(const ParsedArgs& args, const KernelSetup& k);
// An options file as --options takes it (compile --emit options writes one); reports a
// file that cannot be read or holds bad options, naming it.
std::variant<MappingOptions, int> options_from_file(const std::string& path);

// --db PATH, or the default tuning cache file.
std::string cache_path_from_args(const ParsedArgs& args);

std::string shape_string(const std::vector<int64_t>& shape);

}  // namespace tcs::cli
