#pragma once
// Private to compiler/codegen: LoopNest -> LLVM IR with IRBuilder. Kept apart from the
// JIT (CpuKernel.cpp) so each heavy LLVM translation unit stays one job.
#include <map>
#include <memory>
#include <string>

#include "codegen/FoldedInitialisations.h"
#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "loopnest/LoopNest.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace tcs {

// The kernel's entry point: int32_t tcs_kernel(void** buffers, void* pool, const int64_t*
// sizes). `buffers` has one pointer per tensor of the def, in SemaDef::tensors order;
// `pool` is a ThreadPool or null; `sizes` holds the def's sizes in SemaDef::size_params
// order and is read only by a kernel emitted with symbolic sizes. The result is 0, or a
// bit set of the run-time errors below (with symbolic sizes, kErrSizes and nothing run when
// the sizes break one of size_conditions).
inline constexpr const char* kKernelSymbol = "tcs_kernel";
inline constexpr int kErrSubscriptOutOfRange = 1;
inline constexpr int kErrDivisionByZero = 2;
inline constexpr int kErrSizes = 4;

// A value the register tile holds behind an empty assembly statement with these
// constraints, so that LLVM cannot fold it: a padded convolution's moving bounds, whose
// lane masks are then made at run time (LlvmRegisterTile.cpp). Optimisation for a target
// without AVX-512's mask registers releases them first (CpuKernel.cpp).
inline constexpr const char* kHeldValueConstraints = "=r,0";

struct LlvmEmitRequest {
  const SemaDef* def = nullptr;
  const DefShapes* shapes = nullptr;
  const LoopNest* nest = nullptr;
  // Line of each loop and statement in the generated C: the debug locations, so that IR
  // and assembly lines map back to schedule loops and statements through the C text.
  const std::map<const LoopNode*, int>* node_lines = nullptr;
  std::string c_file_name = "kernel.c";
  bool symbolic_sizes = false;  // sizes come from the entry's `sizes` argument (Layout.h)
  // The folded initialisations the C text followed (folded_initialisations); null: decide here.
  const FoldedInitialisations* folds = nullptr;
};

std::unique_ptr<llvm::Module> emit_llvm_module(llvm::LLVMContext& ctx, const LlvmEmitRequest& req);

// The initialisations emit_llvm_module folds into register tiles, for the C text to follow.
FoldedInitialisations folded_initialisations(const LlvmEmitRequest& req);

// The double-precision reference implementation of a builtin, by the symbol name the
// generated code calls ("tcs_builtin_erfinv"); null if there is none.
void* builtin_symbol_address(const std::string& symbol);

}  // namespace tcs
