#include "lang/DomainGuard.h"

#include "lang/Linear.h"

namespace tcs {
namespace {

using ast::Expr;
using ast::ExprKind;

// Whether `e` is the literal identity of a sum (0) or a product (1).
bool is_identity(const Expr& e, ast::ReduceOp op) {
  int64_t want = op == ast::ReduceOp::Sum ? 0 : 1;
  if (e.kind == ExprKind::IntLiteral) return e.int_value == want;
  if (e.kind == ExprKind::FloatLiteral) return e.float_value == double(want);
  return false;
}

// Whether `e` computes in the integers what linearize says: indices, sizes and literals
// under + -, products by a literal up to kFactor and non-negative sizes over a positive
// literal, all in a signed integer type. A cast may wrap (int8(i)), `/` truncates where
// linearize floors, unsigned types wrap, a large factor wraps int32 at ordinary sizes
// (k * 100000000), and a product of sizes is no affine constraint. Sums of indices and
// sizes wrap only at sizes near 2^31, as the kernel's own subscripts would.
constexpr int64_t kFactor = 1 << 12;

bool plain(const Expr& e) {
  if (!scalar_type_is_integer(e.type) || !scalar_type_is_signed(e.type)) return false;
  switch (e.kind) {
    case ExprKind::IntLiteral: return true;
    case ExprKind::Name: return e.ref == ast::NameRef::Index || e.ref == ast::NameRef::SizeParam;
    case ExprKind::Unary: return e.op == TokenKind::Minus && plain(*e.args[0]);
    case ExprKind::Binary:
      if (e.op == TokenKind::Slash) {  // sizes over a positive literal: KH / 2 floors as it truncates
        Linear n = linearize(*e.args[0]);
        return e.args[1]->kind == ExprKind::IntLiteral && e.args[1]->int_value > 0 && n.affine && !n.has_indices() &&
               n.rest.provably_nonnegative() && plain(*e.args[0]);
      }
      if (e.op == TokenKind::Star) {  // by a small literal: a stride or a dilation, not a product that wraps
        auto small = [](const Expr& x) {
          return x.kind == ExprKind::IntLiteral && x.int_value >= -kFactor && x.int_value <= kFactor;
        };
        if (!small(*e.args[0]) && !small(*e.args[1])) return false;
      }
      return (e.op == TokenKind::Plus || e.op == TokenKind::Minus || e.op == TokenKind::Star) && plain(*e.args[0]) &&
             plain(*e.args[1]);
    default: return false;
  }
}

// hi - lo - minus >= 0 as a constraint.
IndexConstraint difference(const Linear& hi, const Linear& lo, int64_t minus) {
  std::map<int, int64_t> coefs = hi.coefs;
  for (auto [ix, c] : lo.coefs) coefs[ix] -= c;
  IndexConstraint out;
  for (auto [ix, c] : coefs)
    if (c != 0) out.coefs.push_back({ix, c});
  out.rest = hi.rest - lo.rest - SymExpr(minus);
  return out;
}

// Appends the comparison (or conjunction of comparisons) `e` as constraints; false when
// some part is not a comparison of affine expressions over indices and sizes in a signed
// integer type (unsigned ones wrap, so their order is not the integers').
bool add_conjunction(const Expr& e, std::vector<IndexConstraint>& out) {
  if (e.kind != ExprKind::Binary) return false;
  if (e.op == TokenKind::AndAnd) return add_conjunction(*e.args[0], out) && add_conjunction(*e.args[1], out);
  for (const auto& side : e.args)
    if (!plain(*side)) return false;
  Linear a = linearize(*e.args[0]), b = linearize(*e.args[1]);
  if (!a.affine || !b.affine || a.data_dependent || b.data_dependent) return false;
  switch (e.op) {
    case TokenKind::Less: out.push_back(difference(b, a, 1)); return true;
    case TokenKind::LessEq: out.push_back(difference(b, a, 0)); return true;
    case TokenKind::Greater: out.push_back(difference(a, b, 1)); return true;
    case TokenKind::GreaterEq: out.push_back(difference(a, b, 0)); return true;
    case TokenKind::EqEq:
      out.push_back(difference(b, a, 0));
      out.push_back(difference(a, b, 0));
      return true;
    default: return false;
  }
}

// The least and greatest value of sum(coef * index) over the indices' ranges.
std::pair<SymExpr, SymExpr> interval(const std::map<int, int64_t>& coefs, const std::vector<SemaIndex>& indices) {
  SymExpr lo(0), hi(0);
  for (auto [ix, c] : coefs) {
    if (c == 0) continue;
    const SemaIndex& u = indices[size_t(ix)];
    lo = lo + (c > 0 ? u.lo : u.hi) * SymExpr(c);
    hi = hi + (c > 0 ? u.hi : u.lo) * SymExpr(c);
  }
  return {lo, hi};
}

// Whether every point of the index ranges where `guard` holds keeps the affine subscript
// `c` inside its tensor's dimension. Each end is proven by the ranges alone or through
// one guard constraint: with sum(g * index) + G >= 0, the subscript R + sum(a * index) is
// at least R - G + min(sum((a - g) * index)) and at most R + G + max(sum((a + g) * index)).
bool kept_inside(const AccessConstraint& c, const std::vector<IndexConstraint>& guard, const SemaDef& def,
                 const SemaStmt& s) {
  const SemaTensor& T = def.tensors[size_t(c.tensor)];
  const SymExpr& L = T.lo[size_t(c.dim)];
  const SymExpr& H = T.hi[size_t(c.dim)];
  std::map<int, int64_t> a(c.coefs.begin(), c.coefs.end());
  auto [lo, hi] = interval(a, s.indices);
  bool low = (c.rest + lo - L).provably_nonnegative(), high = (H - c.rest - hi).provably_nonnegative();
  for (const IndexConstraint& g : guard) {
    std::map<int, int64_t> minus = a, plus = a;
    for (auto [ix, k] : g.coefs) minus[ix] -= k, plus[ix] += k;
    low = low || (c.rest - g.rest + interval(minus, s.indices).first - L).provably_nonnegative();
    high = high || (H - c.rest - g.rest - interval(plus, s.indices).second).provably_nonnegative();
  }
  return low && high;
}

// Whether `inner` is `outer` or lies inside it.
bool within(const Expr* inner, const Expr& outer) {
  if (inner == &outer) return true;
  for (const auto& a : outer.args)
    if (within(inner, *a)) return true;
  return false;
}

}  // namespace

void find_domain_guard(const SemaDef& def, SemaStmt& s) {
  // A sum that starts from +0 never holds -0, so adding the skipped +0 changes nothing;
  // one that accumulates into a tensor (`+=` without `!`) may hold -0, and -0 + 0 is +0.
  ast::ReduceOp op = s.ast->reduce;
  if (!s.reduces() || (op != ast::ReduceOp::Sum && op != ast::ReduceOp::Product)) return;
  if (op == ast::ReduceOp::Sum && !s.ast->init) return;
  std::vector<IndexConstraint> guard;
  const Expr* v = s.ast->rhs.get();
  while (v->kind == ExprKind::Ternary && v->args[1]->type == v->type && is_identity(*v->args[2], op)) {
    std::vector<IndexConstraint> more;
    if (!add_conjunction(*v->args[0], more)) break;
    guard.insert(guard.end(), more.begin(), more.end());
    v = v->args[1].get();
  }
  if (guard.empty()) return;
  for (const SemaIndex& ix : s.indices)
    if (!ix.solved) return;
  s.domain_guard = std::move(guard);
  s.guarded_value = v;
  for (AccessConstraint& c : s.constraints)
    if (c.guarded && c.affine && !c.data_dependent && c.subscript && within(c.subscript, *v))
      c.kept_inside = kept_inside(c, s.domain_guard, def, s);
}

}  // namespace tcs
