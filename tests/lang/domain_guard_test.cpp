// A reduction written `cond ? value : identity`, cond affine in indices and sizes, gets a
// domain guard: the points where cond fails leave the statement's domain, compiled code
// evaluates `value` alone, and the guarded reads that the guard keeps inside their
// tensors are read unchecked. Anything else keeps the whole right-hand side.
#include <gtest/gtest.h>

#include "lang/Frontend.h"

namespace tcs {
namespace {

std::shared_ptr<const CheckedFile> checked(const std::string& text) {
  std::shared_ptr<const CheckedFile> c = check_source("k.tc", text);
  EXPECT_FALSE(c->has_errors()) << diagnostics_format(c->file, c->diagnostics);
  return c;
}

const char* kPadded = R"(
def padded(float(N,C,H,W) I, float(K,C,3,3) Wt) -> (O) {
    O(n, k, y, x) +=! (y + r - 1 >= 0 && y + r - 1 < H && x + s - 1 >= 0 && x + s - 1 < W) ? I(n, c, y + r - 1, x + s - 1) * Wt(k, c, r, s) : 0.0 where y in 0:H, x in 0:W, r in 0:3, s in 0:3
})";

// Whether every guarded read of tensor `name` in the def's first statement is kept inside.
bool kept_inside(const SemaDef& def, const std::string& name) {
  bool any = false, all = true;
  for (const AccessConstraint& c : def.stmts[0].constraints)
    if (c.subscript && def.tensors[size_t(c.tensor)].name == name) {
      any = true;
      all = all && c.guarded && c.kept_inside && !c.checked_when_run();
    }
  return any && all;
}

TEST(DomainGuard, APaddedConvolutionsBoundsTestBecomesItsDomain) {
  auto c = checked(kPadded);
  const SemaStmt& s = c->defs[0].stmts[0];
  EXPECT_EQ(s.domain_guard.size(), 4u);
  ASSERT_NE(s.guarded_value, nullptr);
  EXPECT_EQ(s.value().kind, ast::ExprKind::Binary);  // the product alone
  EXPECT_EQ(s.value().op, TokenKind::Star);
  EXPECT_TRUE(kept_inside(c->defs[0], "I"));
  EXPECT_TRUE(kept_inside(c->defs[0], "Wt"));
  // y + r - 1 >= 0 reads: (-1) + y + r >= 0.
  const IndexConstraint& first = s.domain_guard[0];
  EXPECT_EQ(first.rest, SymExpr(-1));
  EXPECT_EQ(first.coefs.size(), 2u);
}

TEST(DomainGuard, NestedGuardsProductsAndBandsAreConjunctions) {
  auto c = checked(R"(
def nested(float(N,C,H,W) I, float(K,C,3,3) Wt) -> (O) {
    O(n, k, y, x) +=! (y + r - 1 >= 0 && y + r - 1 < H) ? ((x + s - 1 >= 0 && x + s - 1 < W) ? I(n, c, y + r - 1, x + s - 1) * Wt(k, c, r, s) : 0.0) : 0.0 where y in 0:H, x in 0:W, r in 0:3, s in 0:3
}
def tri_prod(float(N,N) A) -> (p) {
    p(i) *=! (k < i) ? A(i, k) : 1.0
}
def band(float(N,N) A, float(N) v) -> (y) {
    y(i) +=! (k == i || k == i + 1) ? A(i, k) * v(k) : 0.0
}
def diagonal(float(N,N) A) -> (t) {
    t(i) +=! (k == i) ? A(i, k) : 0
})");
  EXPECT_EQ(c->defs[0].stmts[0].domain_guard.size(), 4u);
  EXPECT_TRUE(kept_inside(c->defs[0], "I"));
  EXPECT_EQ(c->defs[1].stmts[0].domain_guard.size(), 1u);  // i - k - 1 >= 0
  EXPECT_TRUE(c->defs[2].stmts[0].domain_guard.empty());   // || is no conjunction
  EXPECT_EQ(c->defs[3].stmts[0].domain_guard.size(), 2u);  // == is two
}

TEST(DomainGuard, OtherShapesKeepTheWholeRightHandSide) {
  // Not a guard: an assignment, a non-identity, max, a data test, !=, comparisons that wrap
  // (unsigned, a narrowing cast, a large factor), a division that truncates a negative, a
  // product of sizes (no affine bound when the sizes stay symbolic), and a sum into an
  // existing tensor, which may hold -0 (-0 + 0 is +0).
  auto c = checked(R"(
def assigned(float(N) A) -> (O) {
    O(i) = (i < 3) ? A(i) : 0.0
}
def not_identity(float(N,N) A) -> (O) {
    O(i) +=! (k < i) ? A(i, k) : 1.0
}
def maximum(float(N,N) A) -> (O) {
    O(i) max=! (k < i) ? A(i, k) : 0.0
}
def data(float(N,N) A) -> (O) {
    O(i) +=! (A(i, k) > 0.0) ? A(i, k) : 0.0
}
def unequal(float(N,N) A) -> (O) {
    O(i) +=! (k != i) ? A(i, k) : 0.0
}
def unsigned_index(float(N,N) A) -> (O) {
    O(i) +=! (uint32(k) < uint32(i)) ? A(i, k) : 0.0
}
def narrowed(float(N,N) A) -> (O) {
    O(i) +=! (int8(k) < int8(i)) ? A(i, k) : 0.0
}
def truncated(float(N,N) A) -> (O) {
    O(i) +=! (k - 3 < (N - 10) / 2) ? A(i, k) : 0.0
}
def wrapping(float(N,N) A) -> (O) {
    O(i) +=! (k * 100000000 < 500000000) ? A(i, k) : 0.0
}
def size_product(float(N,N) A) -> (O) {
    O(i) +=! (k < N * N) ? A(i, k) : 0.0
}
def into_existing(float(N,N) A) -> (O) {
    O(i) = A(i, i)
    O(i) += (k < i) ? A(i, k) : 0.0
})");
  for (const SemaDef& def : c->defs) {
    const SemaStmt& s = def.stmts.back();
    EXPECT_TRUE(s.domain_guard.empty()) << def.name;
    EXPECT_EQ(s.guarded_value, nullptr) << def.name;
    EXPECT_EQ(&s.value(), s.ast->rhs.get()) << def.name;
  }
}

TEST(DomainGuard, AReadTheGuardDoesNotBoundIsStillChecked) {
  // Only y is guarded: x + s - 1 still reaches -1 and W, so I's read stays checked.
  auto c = checked(R"(
def half(float(N,C,H,W) I, float(K,C,3,3) Wt) -> (O) {
    O(n, k, y, x) +=! (y + r - 1 >= 0 && y + r - 1 < H) ? I(n, c, y + r - 1, x + s - 1) * Wt(k, c, r, s) : 0.0 where y in 0:H, x in 0:W, r in 0:3, s in 0:3
})");
  const SemaDef& def = c->defs[0];
  EXPECT_EQ(def.stmts[0].domain_guard.size(), 2u);
  for (const AccessConstraint& a : def.stmts[0].constraints)
    if (a.subscript && def.tensors[size_t(a.tensor)].name == "I")
      EXPECT_EQ(a.checked_when_run(), a.dim == 3) << "dimension " << a.dim;
}

}  // namespace
}  // namespace tcs
