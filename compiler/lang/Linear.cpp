#include "lang/Linear.h"

namespace tcs {
namespace {

using ast::Expr;
using ast::ExprKind;
using ast::NameRef;

Linear non_affine_from(const Expr& e);

}  // namespace

Linear linearize(const Expr& e) {
  Linear l;
  switch (e.kind) {
    case ExprKind::IntLiteral:
      l.rest = SymExpr(e.int_value);
      return l;
    case ExprKind::Name:
      if (e.ref == NameRef::Index) {
        l.coefs[e.ref_id] = 1;
        l.mention(e.ref_id);
      } else if (e.ref == NameRef::SizeParam) {
        l.rest = SymExpr::param(e.name);
      } else {
        l = non_affine_from(e);
      }
      return l;
    case ExprKind::Unary: {
      if (e.op != TokenKind::Minus) return non_affine_from(e);
      Linear a = linearize(*e.args[0]);
      for (auto& [ix, c] : a.coefs) c = -c;
      a.rest = -a.rest;
      return a;
    }
    case ExprKind::Cast:
      if (scalar_type_is_integer(e.cast_type) && scalar_type_is_integer(e.args[0]->type))
        return linearize(*e.args[0]);
      return non_affine_from(e);
    case ExprKind::Binary: {
      Linear a = linearize(*e.args[0]), b = linearize(*e.args[1]);
      Linear r;
      r.absorb_mentions(a);
      r.absorb_mentions(b);
      r.affine = a.affine && b.affine;
      if (!r.affine) return r;
      switch (e.op) {
        case TokenKind::Plus:
        case TokenKind::Minus: {
          int64_t sign = e.op == TokenKind::Plus ? 1 : -1;
          r.coefs = a.coefs;
          for (auto [ix, c] : b.coefs) r.coefs[ix] += sign * c;
          std::erase_if(r.coefs, [](const auto& kv) { return kv.second == 0; });
          r.rest = sign > 0 ? a.rest + b.rest : a.rest - b.rest;
          return r;
        }
        case TokenKind::Star: {
          // index * constant stays affine; index * size does not (not invertible here).
          const Linear* idx = a.has_indices() ? &a : &b;
          const Linear* k = a.has_indices() ? &b : &a;
          if (!k->has_indices()) {
            if (!idx->has_indices()) {
              r.rest = a.rest * b.rest;
              return r;
            }
            if (auto c = k->rest.constant()) {
              for (auto [ix, co] : idx->coefs)
                if (co * *c != 0) r.coefs[ix] = co * *c;
              r.rest = idx->rest * SymExpr(*c);
              return r;
            }
          }
          r.affine = false;
          return r;
        }
        case TokenKind::Slash:
          if (!a.has_indices() && !b.has_indices()) {
            if (auto d = b.rest.constant(); d && *d > 0) {
              r.rest = SymExpr::floordiv(a.rest, *d);
              return r;
            }
          }
          r.affine = false;
          return r;
        default:
          r.affine = false;
          return r;
      }
    }
    case ExprKind::MinMax: {
      Linear a = linearize(*e.args[0]), b = linearize(*e.args[1]);
      Linear r;
      r.absorb_mentions(a);
      r.absorb_mentions(b);
      if (a.affine && b.affine && !a.has_indices() && !b.has_indices()) {
        r.rest = e.op == TokenKind::KwMin ? SymExpr::min(a.rest, b.rest) : SymExpr::max(a.rest, b.rest);
        return r;
      }
      r.affine = false;
      return r;
    }
    default:
      return non_affine_from(e);
  }
}

namespace {

// Records which indices a non-affine expression mentions and whether it reads data.
Linear non_affine_from(const Expr& e) {
  Linear l;
  l.affine = false;
  auto visit = [&](auto& self, const Expr& x) -> void {
    if (x.ref == NameRef::Index) l.mention(x.ref_id);
    if (x.ref == NameRef::Tensor) l.data_dependent = true;
    for (const auto& a : x.args) self(self, *a);
  };
  visit(visit, e);
  return l;
}

}  // namespace
}  // namespace tcs
