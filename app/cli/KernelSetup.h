#pragma once
// What `shapes` and `run` share: load and check a file, pick the entry, read the supplied
// tensors and bind every size (from --size, then input shapes, then the file's
// "# sizes:" header), then evaluate shapes.
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "cli/CliArgs.h"
#include "lang/Frontend.h"
#include "lang/Shapes.h"
#include "poly/MappingOptions.h"
#include "runtime/Interpreter.h"

namespace tcs::cli {

struct KernelSetup {
  std::unique_ptr<CheckedFile> checked;
  const SemaDef* def = nullptr;
  TensorMap supplied;  // from --input
  DefShapes shapes;
};

// On failure prints the problem to stderr and returns the exit code to use.
std::variant<KernelSetup, int> kernel_setup(const ParsedArgs& args, const char* command);

// --options FILE.json or --preset NAME (default: the "default" preset for the kernel).
std::variant<MappingOptions, int> mapping_options_from_args(const ParsedArgs& args, const SemaDef& def);

std::string shape_string(const std::vector<int64_t>& shape);

}  // namespace tcs::cli
