#pragma once
// Private to compiler/codegen: math builtins (exp, log, tanh, erf, ...) emitted as
// straight-line IR in float or double that the loop vectoriser can widen (LlvmMath.cpp).
#include <string_view>

#include <llvm/IR/IRBuilder.h>

#include "support/ScalarType.h"

namespace tcs {

// Whether emit_inline_math computes this builtin in `t` (float32 or float64).
bool inline_math_builtin(std::string_view name, ScalarType t);
// The builtin of one float or double argument (or a vector of them), computed in that
// type; null for other builtins.
llvm::Value* emit_inline_math(llvm::IRBuilderBase& B, std::string_view name, llvm::Value* x);
// pow of two floats (or vectors of them), computed in double and rounded once: the
// exponential turns the absolute error of y log|x|, which reaches 88 where the result is
// still a float, into the result's relative error.
llvm::Value* emit_float_pow(llvm::IRBuilderBase& B, llvm::Value* x, llvm::Value* y);

}  // namespace tcs
