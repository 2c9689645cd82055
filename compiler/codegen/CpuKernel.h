#pragma once
// The CPU backend's products: the optimised LLVM IR and x86 assembly of a LoopNest, each
// with its line map, and an executable kernel JIT-compiled with ORC LLJIT for the host
// CPU. LLVM stays behind this header.
#include <map>
#include <memory>
#include <vector>

#include "codegen/FoldedInitialisations.h"
#include "codegen/GeneratedText.h"
#include "codegen/ObjectCode.h"
#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "kernel/Kernel.h"
#include "loopnest/LoopNest.h"
#include "runtime/Interpreter.h"
#include "support/Expected.h"
#include "targets/TargetIdentity.h"

namespace tcs {

class ThreadPool;

class CpuKernel final : public Kernel {
 public:
  struct Impl;
  CpuKernel(const SemaDef& def, const DefShapes& shapes, std::unique_ptr<Impl> impl);
  ~CpuKernel() override;

  std::string_view target() const override { return "cpu"; }
  void set_threads(int threads) override;  // the kernel's own pool; 0: every core
  int threads() const override;
  Status run_buffers(std::vector<Tensor>& buffers) const override;
  std::vector<std::string> local_temporaries() const override;

  // The same on raw pointers, one per tensor of the def (SemaDef::tensors order), each
  // dense, row-major, of the compiled shapes, none overlapping; `pool` null: the kernel's
  // own. For callers that own their memory (the benchmarks' rotating slots).
  Status run_pointers(void* const* buffers, ThreadPool* pool = nullptr) const;

 private:
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<ThreadPool> pool_;
};

struct CpuCodegenRequest {
  const SemaDef* def = nullptr;
  const DefShapes* shapes = nullptr;
  const LoopNest* nest = nullptr;
  // The C text of `nest` and the line of each loop and statement in it (generate_c): the
  // IR's debug locations point at those lines, which is how IR and assembly lines map
  // back to loops and statements.
  const GeneratedText* c_text = nullptr;
  const std::map<const LoopNode*, int>* node_lines = nullptr;
  bool emit_llvm = false;
  bool emit_asm = false;
  bool build_kernel = true;
  // An object file for a C or C++ project: for this LLVM CPU name ("host": this machine),
  // its entry `<prefix>_entry(void** buffers, void* pool, const int64_t* sizes)` (as
  // kKernelSymbol in LlvmEmitter.h), and every symbol it needs from
  // outside libc and libm prefixed too: `<prefix>_parallel_for` and `<prefix>_builtin_<name>`.
  std::string object_cpu;  // empty: no object
  std::string object_prefix;
  bool symbolic_sizes = false;  // the nest keeps its sizes as parameters: the entry reads them
  // The folded initialisations the C text followed (cpu_folded_initialisations), so the IR
  // follows the same decision; null: decided while emitting.
  const FoldedInitialisations* folds = nullptr;
};

struct CpuCodegenResult {
  GeneratedText llvm_ir, assembly;
  ObjectCode object;                          // when object_cpu was given
  std::shared_ptr<CpuKernel> kernel;
  std::vector<PhaseTime> timings;  // "llvm-ir", "llvm-O3", "asm", "jit"
};

Expected<CpuCodegenResult> cpu_codegen(const CpuCodegenRequest& request);

// The initialisations cpu_codegen's LLVM code folds into register tiles, for the C text
// (generate_c) to show the same kernel.
FoldedInitialisations cpu_folded_initialisations(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest,
                                                 bool symbolic_sizes);

// This machine as the CPU target sees it: the processor, the LLVM CPU name and features
// the JIT compiles for, the cores, LLVM's version.
TargetIdentity cpu_host_identity();

}  // namespace tcs
