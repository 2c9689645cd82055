#pragma once
// Private to compiler/codegen: float builtins (exp, log, tanh, erf, ...) emitted as
// straight-line IR that the loop vectoriser can widen (LlvmMath.cpp).
#include <string_view>

#include <llvm/IR/IRBuilder.h>

namespace tcs {

// Whether emit_float_math computes this builtin in float.
bool float_math_builtin(std::string_view name);
// The builtin of one float (or vector of floats) argument; null for other builtins.
llvm::Value* emit_float_math(llvm::IRBuilderBase& b, std::string_view name, llvm::Value* x);

}  // namespace tcs
