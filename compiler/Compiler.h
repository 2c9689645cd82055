#pragma once
// The compiler as one call: a checked def, concrete sizes and mapping options in; the
// polyhedral model, a schedule snapshot per pass, the LoopNest, the generated texts and,
// when asked, an executable CPU kernel out. Every face of the product calls this.
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/GeneratedText.h"
#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "poly/Lowering.h"
#include "poly/MappingOptions.h"
#include "support/Expected.h"

namespace tcs {

class CpuKernel;
struct CompileResult;

struct CompileRequest {
  const SemaDef* def = nullptr;
  const DefShapes* shapes = nullptr;
  MappingOptions options;
  bool emit_c = true;
  bool emit_llvm = false;   // the optimised LLVM IR
  bool emit_asm = false;    // x86 assembly of the same module
  bool build_kernel = false;  // JIT-compile an executable kernel
  const std::atomic<bool>* cancel = nullptr;
  // Called with the schedule snapshots and the C text as soon as they exist, before the
  // slower LLVM phases: the IDE shows the first views while the rest compiles.
  std::function<void(const CompileResult&)> after_c;
};

struct CompileResult {
  LoweringResult lowering;
  GeneratedText c, llvm_ir, assembly;
  std::shared_ptr<CpuKernel> kernel;  // when build_kernel
  std::vector<PhaseTime> timings;     // each pass, then codegen phases
};

Expected<CompileResult> compile(const CompileRequest& request);

// Arithmetic operations one run performs: per statement instance, the arithmetic operators
// and builtin calls of the right-hand side plus one for a reduction's combine (so a
// matmul counts 2*M*N*K). Used for GFLOP/s.
double kernel_flops(const SemaDef& def, const DefShapes& shapes);

// The pass names of the pipeline (for --dump-after and the IDE's pass list).
std::vector<std::string> compile_pass_names();

// The polyhedral model as text: context, statements with domains and accesses, dependences.
std::string poly_model_to_string(const PolyModelInfo& model);

}  // namespace tcs
