#include "codegen/Layout.h"

#include "codegen/CText.h"

namespace tcs {

KernelLayout kernel_layout(const SemaDef& def, const DefShapes& shapes, bool symbolic_sizes) {
  KernelLayout k;
  k.symbolic = symbolic_sizes;
  for (const std::string& p : def.size_params)
    k.sizes.push_back(symbolic_sizes ? SymExpr::param(p) : SymExpr(shapes.sizes.at(p)));
  for (size_t t = 0; t < def.tensors.size(); ++t) {
    TensorLayout l;
    const SemaTensor& T = def.tensors[t];
    const TensorShape& sh = shapes.tensors[t];
    for (int d = 0; d < T.rank(); ++d) {
      if (symbolic_sizes) {
        l.lo.push_back(T.lo[size_t(d)]);
        l.extent.push_back(T.hi[size_t(d)] - T.lo[size_t(d)] + SymExpr(1));
      } else {
        l.lo.push_back(SymExpr(sh.min[size_t(d)]));
        l.extent.push_back(SymExpr(sh.extent[size_t(d)]));
      }
    }
    l.stride.assign(l.extent.size(), SymExpr(1));
    for (size_t d = l.extent.size(); d-- > 1;) l.stride[d - 1] = l.stride[d] * l.extent[d];
    k.tensors.push_back(std::move(l));
  }
  return k;
}

namespace {

std::string atom_c(const SymAtom& a) {
  switch (a.kind) {
    case SymAtom::Param: return c_identifier(a.name);
    case SymAtom::Min: return "tcs_min(" + c_size_expr(a.operands[0]) + ", " + c_size_expr(a.operands[1]) + ")";
    case SymAtom::Max: return "tcs_max(" + c_size_expr(a.operands[0]) + ", " + c_size_expr(a.operands[1]) + ")";
    case SymAtom::FloorDiv: return "tcs_floord(" + c_size_expr(a.operands[0]) + ", " + std::to_string(a.divisor) + ")";
    case SymAtom::Product: return "(" + c_size_expr(a.operands[0]) + ") * (" + c_size_expr(a.operands[1]) + ")";
  }
  return "0";
}

// |coef| * atom, as C.
std::string magnitude_c(const SymExpr::Term& t) {
  int64_t c = t.coef < 0 ? -t.coef : t.coef;
  return c == 1 ? atom_c(*t.atom) : std::to_string(c) + " * " + atom_c(*t.atom);
}

// The terms of `e` whose sign is `sign` (constant included), as a sum of magnitudes.
std::string signed_part(const SymExpr& e, int sign) {
  std::string s;
  for (const SymExpr::Term& t : e.terms())
    if ((t.coef > 0) == (sign > 0)) s += (s.empty() ? "" : " + ") + magnitude_c(t);
  int64_t c = e.constant_term();
  if (c != 0 && (c > 0) == (sign > 0)) s += (s.empty() ? "" : " + ") + std::to_string(c < 0 ? -c : c);
  return s.empty() ? "0" : s;
}

}  // namespace

std::string c_size_expr(const SymExpr& e) {
  // Positive terms first, so H - KH + 1 rather than -KH + H + 1.
  std::string s;
  for (int sign : {+1, -1})
    for (const SymExpr::Term& t : e.terms())
      if ((t.coef > 0) == (sign > 0))
        s += (s.empty() ? (t.coef < 0 ? "-" : "") : (t.coef < 0 ? " - " : " + ")) + magnitude_c(t);
  int64_t c = e.constant_term();
  if (s.empty()) return std::to_string(c);
  if (c != 0) s += (c < 0 ? " - " : " + ") + std::to_string(c < 0 ? -c : c);
  return s;
}

std::string c_size_violated(const SymExpr& nonnegative) {
  return signed_part(nonnegative, +1) + " < " + signed_part(nonnegative, -1);
}

std::string c_size_holds(const SymExpr& nonnegative) {
  return signed_part(nonnegative, +1) + " >= " + signed_part(nonnegative, -1);
}

}  // namespace tcs
