#pragma once
// Where each element of each tensor lives, and what each size is, as the generated code
// computes them: numbers when the sizes are fixed at compile time (every kernel the IDE
// and the tuner run), expressions over the size parameters when the sizes are left to
// the caller (an export with symbolic sizes, whose function takes them as arguments).
// The C text prints these expressions; the LLVM emitter builds them as IR.
#include <optional>
#include <string>
#include <vector>

#include "lang/Sema.h"
#include "lang/Shapes.h"

namespace tcs {

struct TensorLayout {
  std::vector<SymExpr> lo;      // first coordinate per dimension
  std::vector<SymExpr> extent;  // per dimension
  std::vector<SymExpr> stride;  // row-major, in elements
};

struct KernelLayout {
  bool symbolic = false;
  std::vector<SymExpr> sizes;          // by SemaDef::size_params
  std::vector<TensorLayout> tensors;   // by SemaDef::tensors

  // A stride known when the code is generated (always with fixed sizes; with symbolic
  // sizes, the innermost one and those behind constant extents).
  std::optional<int64_t> constant_stride(int t, size_t d) const { return tensors[size_t(t)].stride[d].constant(); }
};

KernelLayout kernel_layout(const SemaDef& def, const DefShapes& shapes, bool symbolic_sizes);

// A size expression as C: sizes by their C names, floor division, min and max as the
// tcs_floord / tcs_min / tcs_max macros the C text defines.
std::string c_size_expr(const SymExpr& e);
// The C test that `nonnegative` is negative, written as a comparison of its positive and
// negative terms: "M < 1" for M - 1, "2147483648 < M" for 2147483648 - M.
std::string c_size_violated(const SymExpr& nonnegative);
// The opposite test: "M >= 1", "H >= KH".
std::string c_size_holds(const SymExpr& nonnegative);

}  // namespace tcs
