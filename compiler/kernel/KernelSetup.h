#pragma once
// From text to a kernel ready to compile, once for every face (CLI, IDE, benchmarks,
// tests, tuner): checked file -> entry -> sizes -> shapes, and the mapping options.
//
// Sizes, highest precedence first:
//   1. explicit sizes (the CLI's --size, the IDE's sizes table, a request's "sizes");
//   2. the shapes of tensors the caller supplies (the CLI's --input);
//   3. the file's "# sizes:" header.
// A header size is not used for a parameter that a supplied tensor's shape implies, so a
// supplied .npy always wins over the header.
#include <map>
#include <memory>
#include <string>

#include "lang/Frontend.h"
#include "lang/Shapes.h"
#include "options/MappingOptions.h"
#include "support/Expected.h"

namespace tcs {

struct KernelSpec {
  std::string entry;  // empty: the file's only def (an error when it has several)
  SizeMap sizes;      // explicit sizes
  std::map<std::string, TensorSignature> supplied;  // tensors the caller will supply
};

struct KernelSetup {
  std::shared_ptr<const CheckedFile> checked;
  const SemaDef* def = nullptr;  // into *checked
  SizeMap header_sizes;          // the def's "# sizes:" line (sizes_from_header)
  DefShapes shapes;
};

// Errors: Source (the file has errors, no such entry), Sizes (unbound, impossible, or
// tensors larger than this machine's memory).
Expected<KernelSetup> kernel_setup(std::shared_ptr<const CheckedFile> checked, const KernelSpec& spec);

// How options are chosen: a preset by name, or options as JSON (which wins when given).
struct OptionsChoice {
  std::string preset = "default";
  std::string json;
};

// Errors: Options (unknown preset, a preset this kernel cannot use, bad JSON or values).
Expected<MappingOptions> kernel_options(const SemaDef& def, const OptionsChoice& choice, const DefShapes* shapes = nullptr);

}  // namespace tcs
