#pragma once
// What the subcommands share: turn --entry, --size and --input into the compiler's one
// kernel set-up (kernel/KernelSetup.h, which documents the sizes' precedence), print its
// error if any, and keep the supplied tensors.
#include <memory>
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

// On failure prints the problem to stderr and returns the exit code to use.
std::variant<CliKernel, int> kernel_setup(const ParsedArgs& args, const char* command);

// --options FILE.json, --preset NAME or --best (the tuning cache's best for this kernel on
// this machine, saying on stderr which record it used or that it fell back to the
// default); default: the "default" preset for the kernel.
std::variant<MappingOptions, int> mapping_options_from_args(const ParsedArgs& args, const KernelSetup& k);

// --db PATH, or the default tuning cache file.
std::string cache_path_from_args(const ParsedArgs& args);

std::string shape_string(const std::vector<int64_t>& shape);

}  // namespace tcs::cli
