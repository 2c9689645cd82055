#pragma once
// Private to compiler/codegen: math builtins (exp, log, tanh, erf, ...) emitted as
// straight-line IR in float or double that the loop vectoriser can widen (LlvmMath.cpp).
#include <string_view>

#include <llvm/IR/IRBuilder.h>

#include "support/ScalarType.h"

namespace tcs {

// Whether emit_inline_math computes this builtin in `t` (float32 or float64).
bool inline_math_builtin(std::string_view name, ScalarType t);
// The builtin of float or double arguments (or vectors of them), all of one type, computed
// in that type; null for other builtins.
llvm::Value* emit_inline_math(llvm::IRBuilderBase& B, std::string_view name, llvm::ArrayRef<llvm::Value*> args);
// pow of two doubles (or vectors of them), computed in double: for a float or float16
// result (`for_float`), to be rounded once to it; otherwise with log in two parts. The
// exponential turns the absolute error of y log|x| (up to 104 for a float result, 709
// for a double) into the result's relative error; and an integer y keeps its parity only
// in double.
llvm::Value* emit_pow(llvm::IRBuilderBase& B, llvm::Value* x, llvm::Value* y, bool for_float);

// sin, cos or tan.
bool trig_builtin(std::string_view name);
// sin, cos or tan of a double, computed in double where |x| < 2^30 (to about an ulp; with
// the shorter polynomials a float result needs when `for_float`) and by `reference`, the
// double reference of one argument, beyond. Emits a branch to the far arguments that the
// loop vectoriser turns into a masked call per vector (see drop_far_lanes_variants).
llvm::Value* emit_trig(llvm::IRBuilderBase& B, std::string_view name, llvm::Value* x, bool for_float,
                       llvm::FunctionCallee reference);
// After the optimisation pipeline, once the masked calls of the far branch are inlined
// (they are always-inline): the variants no vector loop called go.
void drop_far_lanes_variants(llvm::Module& m);

}  // namespace tcs
