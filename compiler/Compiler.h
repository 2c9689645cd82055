#pragma once
// The compiler as one call. A CompileRequest is plain data (it crosses process boundaries
// as JSON: the tuner's worker, export); compile() sets the kernel up (kernel/KernelSetup),
// chooses options, lowers through isl with the target's passes and generates the target's
// texts and, when asked, a Kernel. Faces that need the checked file whatever happens (the
// IDE shows its diagnostics) call kernel_setup and compile_kernel themselves.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen/GeneratedText.h"
#include "codegen/ObjectCode.h"
#include "kernel/Kernel.h"
#include "kernel/KernelSetup.h"
#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "poly/Lowering.h"
#include "options/MappingOptions.h"
#include "support/Expected.h"

namespace tcs {

struct CompileRequest {
  std::string file_name = "kernel.tc";  // for messages
  std::string source;                   // the .tc text
  std::string entry;                    // empty: the file's only def
  SizeMap sizes;                        // explicit sizes; the rest from the "# sizes:" header
  OptionsChoice options;                // a preset, or options as JSON
  std::string target = "cpu";
  std::vector<std::string> text_kinds = {"c"};  // text kinds: "c", "llvm", "asm"
  bool build_kernel = false;
  bool symbolic_sizes = false;                  // see CodegenChoice
};

// {"file_name", "source", "entry", "sizes": {NAME: INT}, "preset", "options": {...},
//  "target", "emit": [...], "build_kernel", "symbolic_sizes"}; errors are InputFile errors naming the field.
std::string compile_request_to_json(const CompileRequest& request);
Expected<CompileRequest> compile_request_from_json(std::string_view text);

struct CompileResult;

// What a caller may hook into a compile in its own process.
struct CompileHooks {
  const std::atomic<bool>* cancel = nullptr;  // polled between passes and phases
  // Called with the schedule snapshots and the first texts (C) as soon as they exist,
  // before the slower LLVM phases.
  std::function<void(const CompileResult&)> early;
};

struct CompileResult {
  KernelSetup setup;       // checked file, def, shapes
  MappingOptions options;  // what the compiler used
  std::string target;
  LoweringResult lowering;
  std::map<std::string, GeneratedText> texts;  // by kind
  std::shared_ptr<Kernel> kernel;              // when build_kernel
  ObjectCode object;                           // when object_cpu was given
  std::vector<PhaseTime> timings;              // each pass, then codegen phases

  // The text of a kind; an empty one when it was not generated.
  const GeneratedText& text(std::string_view kind) const;
};

// Errors carry their kind: Source, Sizes, Options, Cancelled, Internal.
Expected<CompileResult> compile(const CompileRequest& request, const CompileHooks& hooks = {});

// The same from a kernel already set up, with options already chosen.
struct CodegenChoice {
  CodegenChoice(std::string target_name = "cpu", std::vector<std::string> kinds = {"c"}, bool kernel = false)
      : target(std::move(target_name)), text_kinds(std::move(kinds)), build_kernel(kernel) {}
  std::string target;
  std::vector<std::string> text_kinds;
  bool build_kernel;
  std::string object_cpu, object_prefix;  // an object file too (export); see targets/Target.h
  // The generated code takes the sizes as arguments and holds for every size satisfying
  // size_conditions (lower_to_loop_nest); the setup's sizes only guide the choices.
  bool symbolic_sizes = false;
};
Expected<CompileResult> compile_kernel(const KernelSetup& setup, const MappingOptions& options,
                                       const CodegenChoice& choice, const CompileHooks& hooks = {});

// Arithmetic operations one run performs: per statement instance, the arithmetic operators
// and builtin calls of the right-hand side plus one for a reduction's combine (so a
// matmul counts 2*M*N*K). Used for GFLOP/s.
double kernel_flops(const SemaDef& def, const DefShapes& shapes);

// The pass names of the pipeline for a target (for --dump-after and the IDE's pass list).
std::vector<std::string> compile_pass_names(std::string_view target = "cpu");

// The polyhedral model as text: context, statements with domains and accesses, dependences.
std::string poly_model_to_string(const PolyModelInfo& model);

}  // namespace tcs
