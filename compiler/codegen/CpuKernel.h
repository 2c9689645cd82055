#pragma once
// The CPU backend's products: the optimised LLVM IR and x86 assembly of a LoopNest, each
// with its line map, and an executable kernel JIT-compiled with ORC LLJIT for the host
// CPU. LLVM stays behind this header.
#include <map>
#include <memory>
#include <vector>

#include "codegen/GeneratedText.h"
#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "loopnest/LoopNest.h"
#include "runtime/Interpreter.h"
#include "support/Expected.h"

namespace tcs {

class ThreadPool;

class CpuKernel {
 public:
  struct Impl;
  explicit CpuKernel(std::unique_ptr<Impl> impl);
  ~CpuKernel();

  // Runs on raw buffers: one pointer per tensor of the def (SemaDef::tensors order), each
  // dense, row-major, of the shapes the kernel was compiled for, none overlapping.
  Status run_buffers(void* const* buffers, ThreadPool* pool) const;

  // Runs like the interpreter: copies of the supplied tensors in, outputs out.
  Expected<TensorMap> run(const TensorMap& supplied, ThreadPool* pool) const;

 private:
  std::unique_ptr<Impl> impl_;
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
};

struct CpuCodegenResult {
  GeneratedText llvm_ir, assembly;
  std::shared_ptr<CpuKernel> kernel;
  std::vector<PhaseTime> timings;  // "llvm-ir", "llvm-O3", "asm", "jit"
};

Expected<CpuCodegenResult> cpu_codegen(const CpuCodegenRequest& request);

}  // namespace tcs
