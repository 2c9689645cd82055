// Range inference (LANGUAGE.md §4), checked twice: symbolically, on the SymExpr bounds that
// Sema leaves on every index and tensor, and numerically, through sizes_bind and
// shapes_evaluate for concrete sizes. Also the warnings of §4 and §3 and the errors that
// binding and evaluating sizes report.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lang/Frontend.h"
#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "lang/SymExpr.h"

namespace tcs {
namespace {

// ----------------------------------------------------------------------------- helpers

::testing::AssertionResult has_substr(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" lacks \"" << part << "\"";
}

SymExpr P(const std::string& name) { return SymExpr::param(name); }

std::string all_diagnostics(const CheckedFile& f) { return diagnostics_format(f.file, f.diagnostics); }

std::vector<const Diagnostic*> with_severity(const CheckedFile& f, Severity s) {
  std::vector<const Diagnostic*> out;
  for (const Diagnostic& d : f.diagnostics)
    if (d.severity == s) out.push_back(&d);
  return out;
}

std::string text_of(const CheckedFile& f, const Diagnostic& d) { return std::string(f.file.slice(d.range)); }

// A checked file with exactly one def, which must be free of errors.
struct Kernel {
  std::unique_ptr<CheckedFile> file;
  const SemaDef* def = nullptr;

  const SemaStmt& stmt(size_t s) const { return def->stmts.at(s); }
  const SemaIndex& index(size_t s, const std::string& name) const {
    for (const SemaIndex& ix : stmt(s).indices)
      if (ix.name == name) return ix;
    ADD_FAILURE() << "statement " << s << " has no index '" << name << "'";
    static SemaIndex none;
    return none;
  }
  const SemaTensor& tensor(const std::string& name) const {
    int t = def->find_tensor(name);
    if (t < 0) {
      ADD_FAILURE() << "no tensor '" << name << "'";
      static SemaTensor none;
      return none;
    }
    return def->tensors[size_t(t)];
  }
  std::vector<const Diagnostic*> warnings() const { return with_severity(*file, Severity::Warning); }
};

Kernel check_ok(const std::string& src) {
  Kernel k;
  k.file = check_source("test.tc", src);
  EXPECT_FALSE(k.file->has_errors()) << all_diagnostics(*k.file);
  auto d = select_entry(*k.file, "");
  EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error());
  if (d.ok()) k.def = *d;
  if (k.def) {
    EXPECT_TRUE(k.def->ok);
  }
  return k;
}

// "[lo, hi]" of an index or of one dimension of a tensor, as SymExpr::str() spells them.
std::string bounds(const SemaIndex& ix) { return "[" + ix.lo.str() + ", " + ix.hi.str() + "]"; }
std::string bounds(const SemaTensor& t, int d) {
  return "[" + t.lo.at(size_t(d)).str() + ", " + t.hi.at(size_t(d)).str() + "]";
}

const IndexRange* find_range(const DefShapes& sh, size_t stmt, const std::string& name) {
  for (const IndexRange& r : sh.stmts.at(stmt))
    if (r.name == name) return &r;
  return nullptr;
}

// lo and hi (inclusive) of an index of statement `stmt` for evaluated shapes.
std::pair<int64_t, int64_t> range_of(const DefShapes& sh, size_t stmt, const std::string& name) {
  const IndexRange* r = find_range(sh, stmt, name);
  EXPECT_NE(r, nullptr) << "statement " << stmt << " has no index '" << name << "'";
  return r ? std::pair{r->lo, r->hi} : std::pair<int64_t, int64_t>{0, -1};
}

const TensorShape& shape_of(const SemaDef& def, const DefShapes& sh, const std::string& name) {
  int t = def.find_tensor(name);
  EXPECT_GE(t, 0) << name;
  return sh.tensors.at(size_t(t < 0 ? 0 : t));
}

using Shape = std::vector<int64_t>;

// ---------------------------------------------------------------- symbolic and numeric

TEST(RangeInference, MatmulIndicesAndOutputShape) {
  Kernel k = check_ok("def matmul(float(M,K) A, float(K,N) B) -> (C) {\n"
                      "    C(m, n) +=! A(m, k) * B(k, n)\n"
                      "}\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  const SemaStmt& s = k.stmt(0);
  EXPECT_EQ(s.lhs_rank, 2);
  ASSERT_EQ(s.indices.size(), 3u);
  EXPECT_EQ(s.indices[0].name, "m");
  EXPECT_EQ(s.indices[1].name, "n");
  EXPECT_EQ(s.indices[2].name, "k");
  EXPECT_FALSE(s.indices[2].on_lhs);
  EXPECT_EQ(bounds(k.index(0, "m")), "[0, M - 1]");
  EXPECT_EQ(bounds(k.index(0, "n")), "[0, N - 1]");
  EXPECT_EQ(bounds(k.index(0, "k")), "[0, K - 1]");
  const SemaTensor& C = k.tensor("C");
  EXPECT_EQ(C.role, TensorRole::Output);
  ASSERT_EQ(C.rank(), 2);
  EXPECT_EQ(bounds(C, 0), "[0, M - 1]");
  EXPECT_EQ(bounds(C, 1), "[0, N - 1]");

  auto sizes = sizes_bind(*k.def, {}, {{"A", {ScalarType::Float32, {2, 3}}}, {"B", {ScalarType::Float32, {3, 4}}}});
  ASSERT_TRUE(sizes.ok()) << sizes.error();
  EXPECT_EQ(*sizes, (SizeMap{{"K", 3}, {"M", 2}, {"N", 4}}));
  auto sh = shapes_evaluate(*k.def, *sizes);
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(shape_of(*k.def, *sh, "C").extent, (Shape{2, 4}));
  EXPECT_EQ(shape_of(*k.def, *sh, "C").min, (Shape{0, 0}));
  EXPECT_EQ(shape_of(*k.def, *sh, "C").numel(), 8);
  EXPECT_EQ(range_of(*sh, 0, "k"), (std::pair<int64_t, int64_t>{0, 2}));
}

TEST(RangeInference, ConvSlidingWindow) {
  Kernel k = check_ok("def conv(float(N,C,H,W) I, float(F,C,KH,KW) Wt) -> (O) {\n"
                      "    O(n, f, h, w) +=! I(n, c, h + kh, w + kw) * Wt(f, c, kh, kw)\n"
                      "}\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  EXPECT_EQ(bounds(k.index(0, "h")), "[0, H - KH]");
  EXPECT_TRUE(k.index(0, "w").hi == P("W") - P("KW")) << k.index(0, "w").hi.str();
  EXPECT_EQ(bounds(k.index(0, "kh")), "[0, KH - 1]");
  EXPECT_EQ(bounds(k.index(0, "c")), "[0, C - 1]");
  const SemaTensor& O = k.tensor("O");
  ASSERT_EQ(O.rank(), 4);
  EXPECT_EQ(bounds(O, 2), "[0, H - KH]");
  EXPECT_TRUE(O.hi[3] == P("W") - P("KW"));
  // H - KH evaluates like any other bound.
  EXPECT_EQ(k.index(0, "h").hi.eval({{"H", 5}, {"KH", 2}}), 3);
  EXPECT_EQ(k.index(0, "h").hi.eval({{"H", 5}}), std::nullopt);

  auto sizes = sizes_bind(*k.def, {},
                          {{"I", {ScalarType::Float32, {1, 2, 5, 6}}}, {"Wt", {ScalarType::Float32, {3, 2, 2, 3}}}});
  ASSERT_TRUE(sizes.ok()) << sizes.error();
  auto sh = shapes_evaluate(*k.def, *sizes);
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(shape_of(*k.def, *sh, "O").extent, (Shape{1, 3, 4, 4}));
  EXPECT_EQ(shape_of(*k.def, *sh, "O").min, (Shape{0, 0, 0, 0}));
  EXPECT_EQ(range_of(*sh, 0, "kw"), (std::pair<int64_t, int64_t>{0, 2}));
  EXPECT_EQ(range_of(*sh, 0, "w"), (std::pair<int64_t, int64_t>{0, 3}));
}

TEST(RangeInference, StrideTwoGivesCeilOfHalf) {
  Kernel k = check_ok("def every_other(float(N) B) -> (O) { O(i) = B(2*i) }\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  const SemaIndex& i = k.index(0, "i");
  EXPECT_TRUE(i.lo == SymExpr(0));
  EXPECT_TRUE(i.hi == SymExpr::floordiv(P("N") - SymExpr(1), 2)) << i.hi.str();
  for (int64_t n = 1; n <= 9; ++n) {
    auto sh = shapes_evaluate(*k.def, {{"N", n}});
    ASSERT_TRUE(sh.ok()) << sh.error();
    EXPECT_EQ(shape_of(*k.def, *sh, "O").extent, (Shape{(n + 1) / 2})) << "N=" << n;  // ceil(N/2)
    EXPECT_EQ(range_of(*sh, 0, "i").second, (n + 1) / 2 - 1) << "N=" << n;
  }
}

TEST(RangeInference, StrideWithOffsetAndNegativeStride) {
  Kernel odd = check_ok("def odd(float(N) B) -> (O) { O(i) = B(2*i + 1) }\n");
  ASSERT_TRUE(odd.def);
  for (int64_t n = 2; n <= 9; ++n) {  // 2i + 1 <= N - 1: i <= floor((N - 2) / 2)
    auto sh = shapes_evaluate(*odd.def, {{"N", n}});
    ASSERT_TRUE(sh.ok()) << sh.error();
    EXPECT_EQ(range_of(*sh, 0, "i"), (std::pair<int64_t, int64_t>{0, n / 2 - 1})) << "N=" << n;
  }
  // 0 <= N - 2i <= N - 1: i in [1, floor(N/2)].
  Kernel back = check_ok("def back(float(N) A) -> (O) { O(i) = A(N - 2*i) }\n");
  ASSERT_TRUE(back.def);
  EXPECT_TRUE(back.index(0, "i").lo == SymExpr(1));
  EXPECT_TRUE(back.index(0, "i").hi == SymExpr::floordiv(P("N"), 2)) << back.index(0, "i").hi.str();
  auto sh = shapes_evaluate(*back.def, {{"N", 7}});
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(range_of(*sh, 0, "i"), (std::pair<int64_t, int64_t>{1, 3}));
  EXPECT_EQ(shape_of(*back.def, *sh, "O").min, (Shape{1}));
  EXPECT_EQ(shape_of(*back.def, *sh, "O").extent, (Shape{3}));
}

TEST(RangeInference, StridedConvolution) {
  Kernel k = check_ok("def sconv(float(H) I, float(KH) K) -> (O) { O(h) +=! I(2*h + kh) * K(kh) }\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  EXPECT_EQ(bounds(k.index(0, "kh")), "[0, KH - 1]");
  // 2h + (KH - 1) <= H - 1.
  EXPECT_TRUE(k.index(0, "h").hi == SymExpr::floordiv(P("H") - P("KH"), 2)) << k.index(0, "h").hi.str();
  for (auto [h, kh] : std::vector<std::pair<int64_t, int64_t>>{{7, 3}, {8, 3}, {3, 3}, {10, 1}, {9, 2}}) {
    auto sh = shapes_evaluate(*k.def, {{"H", h}, {"KH", kh}});
    ASSERT_TRUE(sh.ok()) << sh.error();
    EXPECT_EQ(shape_of(*k.def, *sh, "O").extent, (Shape{(h - kh) / 2 + 1})) << "H=" << h << " KH=" << kh;
  }

  Kernel k2 = check_ok("def sconv2d(float(N,C,H,W) I, float(F,C,KH,KW) Wt) -> (O) {\n"
                       "    O(n, f, h, w) +=! I(n, c, 2*h + kh, 2*w + kw) * Wt(f, c, kh, kw)\n"
                       "}\n");
  ASSERT_TRUE(k2.def);
  auto sh = shapes_evaluate(*k2.def, {{"N", 1}, {"C", 2}, {"H", 7}, {"W", 6}, {"F", 2}, {"KH", 3}, {"KW", 2}});
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(shape_of(*k2.def, *sh, "O").extent, (Shape{1, 2, 3, 3}));
}

TEST(RangeInference, OffsetSolvesKernelIndexFirst) {
  Kernel k = check_ok("def corr(float(NB) B, float(NK) K) -> (O) { O(i) +=! B(i + k) * K(k) }\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  EXPECT_EQ(bounds(k.index(0, "k")), "[0, NK - 1]");
  EXPECT_EQ(bounds(k.index(0, "i")), "[0, NB - NK]");
  // Both accesses were used to solve something, so neither is left over as a precondition.
  for (const AccessConstraint& c : k.stmt(0).constraints) EXPECT_TRUE(c.used_to_solve);
  auto sizes = sizes_bind(*k.def, {}, {{"B", {ScalarType::Float32, {10}}}, {"K", {ScalarType::Float32, {3}}}});
  ASSERT_TRUE(sizes.ok()) << sizes.error();
  auto sh = shapes_evaluate(*k.def, *sizes);
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(shape_of(*k.def, *sh, "O").extent, (Shape{8}));
  EXPECT_EQ(range_of(*sh, 0, "i"), (std::pair<int64_t, int64_t>{0, 7}));
  EXPECT_EQ(range_of(*sh, 0, "k"), (std::pair<int64_t, int64_t>{0, 2}));
}

TEST(RangeInference, NegativeOffsetGivesNonZeroMinimum) {
  // 0 <= i - k for every k in [0, NK - 1]: i starts at NK - 1.
  Kernel k = check_ok("def causal(float(NB) B, float(NK) K) -> (O) { O(i) +=! B(i - k) * K(k) }\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  EXPECT_EQ(bounds(k.index(0, "i")), "[NK - 1, NB - 1]");
  EXPECT_EQ(bounds(k.tensor("O"), 0), "[NK - 1, NB - 1]");
  auto sh = shapes_evaluate(*k.def, {{"NB", 7}, {"NK", 3}});
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(shape_of(*k.def, *sh, "O").min, (Shape{2}));
  EXPECT_EQ(shape_of(*k.def, *sh, "O").extent, (Shape{5}));
}

TEST(RangeInference, NonZeroMinimumCarriesToLaterStatements) {
  Kernel k = check_ok("def shift(float(N) I) -> (O, P) {\n"
                      "    O(i) = I(i - 1)\n"
                      "    P(i) = O(i) * 2\n"
                      "}\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  EXPECT_EQ(bounds(k.index(0, "i")), "[1, N]");
  EXPECT_EQ(bounds(k.tensor("O"), 0), "[1, N]");
  EXPECT_EQ(bounds(k.index(1, "i")), "[1, N]");  // from O's inferred bounds
  EXPECT_EQ(bounds(k.tensor("P"), 0), "[1, N]");

  auto sizes = sizes_bind(*k.def, {}, {{"I", {ScalarType::Float32, {4}}}});
  ASSERT_TRUE(sizes.ok()) << sizes.error();
  auto sh = shapes_evaluate(*k.def, *sizes);
  ASSERT_TRUE(sh.ok()) << sh.error();
  for (const char* t : {"O", "P"}) {
    EXPECT_EQ(shape_of(*k.def, *sh, t).extent, (Shape{4})) << t;
    EXPECT_EQ(shape_of(*k.def, *sh, t).min, (Shape{1})) << t;
  }
  EXPECT_EQ(range_of(*sh, 1, "i"), (std::pair<int64_t, int64_t>{1, 4}));

  // A strided read of a tensor that starts at 1: 1 <= 2i <= N.
  Kernel s = check_ok("def shift2(float(N) I) -> (O, P) {\n"
                      "    O(i) = I(i - 1)\n"
                      "    P(i) = O(2*i)\n"
                      "}\n");
  ASSERT_TRUE(s.def);
  EXPECT_TRUE(s.index(1, "i").lo == SymExpr(1));
  EXPECT_TRUE(s.index(1, "i").hi == SymExpr::floordiv(P("N"), 2)) << s.index(1, "i").hi.str();
  auto sh2 = shapes_evaluate(*s.def, {{"N", 7}});
  ASSERT_TRUE(sh2.ok()) << sh2.error();
  EXPECT_EQ(shape_of(*s.def, *sh2, "P").min, (Shape{1}));
  EXPECT_EQ(shape_of(*s.def, *sh2, "P").extent, (Shape{3}));
}

TEST(RangeInference, NegativeIndexInterval) {
  Kernel k = check_ok("def mirror(float(N) A) -> (O) { O(i) = A(-i) }\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.index(0, "i").lo == SymExpr(1) - P("N")) << k.index(0, "i").lo.str();
  EXPECT_TRUE(k.index(0, "i").hi == SymExpr(0));
  auto sh = shapes_evaluate(*k.def, {{"N", 4}});
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(shape_of(*k.def, *sh, "O").min, (Shape{-3}));
  EXPECT_EQ(shape_of(*k.def, *sh, "O").extent, (Shape{4}));
}

TEST(RangeInference, NegativeCoefficientReversal) {
  Kernel k = check_ok("def reverse(float(N) A) -> (O) { O(i) = A(N - 1 - i) }\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  EXPECT_EQ(bounds(k.index(0, "i")), "[0, N - 1]");
  ASSERT_EQ(k.stmt(0).constraints.size(), 1u);
  const AccessConstraint& c = k.stmt(0).constraints[0];
  EXPECT_TRUE(c.affine);
  ASSERT_EQ(c.coefs.size(), 1u);
  EXPECT_EQ(c.coefs[0].second, -1);
  EXPECT_TRUE(c.rest == P("N") - SymExpr(1));
  auto sh = shapes_evaluate(*k.def, {{"N", 5}});
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(shape_of(*k.def, *sh, "O").extent, (Shape{5}));
  EXPECT_EQ(shape_of(*k.def, *sh, "O").min, (Shape{0}));
}

TEST(RangeInference, WhereRangeFixesAnIndex) {
  Kernel k = check_ok("def inner(float(N) X) -> (O) { O(i) = X(i) where i in 1:N }\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  EXPECT_TRUE(k.index(0, "i").from_where);
  EXPECT_EQ(bounds(k.index(0, "i")), "[1, N - 1]");
  auto sh = shapes_evaluate(*k.def, {{"N", 3}});
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(shape_of(*k.def, *sh, "O").min, (Shape{1}));
  EXPECT_EQ(shape_of(*k.def, *sh, "O").extent, (Shape{2}));
}

TEST(RangeInference, MaxpoolWindowFromWhere) {
  Kernel k = check_ok("def maxpool2x2(float(N,C,H,W) I) -> (O) {\n"
                      "    O(n, c, h, w) max=! I(n, c, 2*h + kh, 2*w + kw) where kh in 0:2, kw in 0:2\n"
                      "}\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  EXPECT_TRUE(k.index(0, "kh").from_where);
  EXPECT_EQ(bounds(k.index(0, "kh")), "[0, 1]");
  EXPECT_EQ(bounds(k.index(0, "kw")), "[0, 1]");
  EXPECT_FALSE(k.index(0, "h").from_where);
  // 2h + 1 <= H - 1.
  EXPECT_TRUE(k.index(0, "h").hi == SymExpr::floordiv(P("H") - SymExpr(2), 2)) << k.index(0, "h").hi.str();
  for (auto [h, w, ho, wo] : std::vector<std::array<int64_t, 4>>{{4, 4, 2, 2}, {5, 4, 2, 2}, {6, 7, 3, 3}, {2, 3, 1, 1}}) {
    auto sh = shapes_evaluate(*k.def, {{"N", 1}, {"C", 3}, {"H", h}, {"W", w}});
    ASSERT_TRUE(sh.ok()) << sh.error();
    EXPECT_EQ(shape_of(*k.def, *sh, "O").extent, (Shape{1, 3, ho, wo})) << "H=" << h << " W=" << w;
  }
  // A 2x2 window does not fit into one row.
  auto empty = shapes_evaluate(*k.def, {{"N", 1}, {"C", 1}, {"H", 1}, {"W", 4}});
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(has_substr(empty.error(), "'h'"));
  EXPECT_TRUE(has_substr(empty.error(), "empty range"));
}

TEST(RangeInference, LetBindingIsSubstituted) {
  Kernel k = check_ok("def next(float(N) A) -> (O) { O(i) = A(j) where j = i + 1 }\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  // A let is not an index: only i exists, with 0 <= i + 1 <= N - 1.
  ASSERT_EQ(k.stmt(0).indices.size(), 1u);
  EXPECT_EQ(bounds(k.index(0, "i")), "[-1, N - 2]");
  auto sh = shapes_evaluate(*k.def, {{"N", 5}});
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(shape_of(*k.def, *sh, "O").min, (Shape{-1}));
  EXPECT_EQ(shape_of(*k.def, *sh, "O").extent, (Shape{5}));

  // Lets may use other lets: A(2 * (i + 1)).
  Kernel chain = check_ok("def chain(float(N) A) -> (O) { O(i) = A(k) where j = i + 1, k = 2 * j }\n");
  ASSERT_TRUE(chain.def);
  EXPECT_TRUE(chain.index(0, "i").lo == SymExpr(-1));
  EXPECT_TRUE(chain.index(0, "i").hi == SymExpr::floordiv(P("N") - SymExpr(3), 2)) << chain.index(0, "i").hi.str();
  auto sh2 = shapes_evaluate(*chain.def, {{"N", 6}});
  ASSERT_TRUE(sh2.ok()) << sh2.error();
  EXPECT_EQ(range_of(*sh2, 0, "i"), (std::pair<int64_t, int64_t>{-1, 1}));

  // A let may use an index bounded by a where range: A(i + k), k in [0, 2].
  Kernel win = check_ok("def win(float(N) A) -> (O) { O(i) +=! A(j) where j = i + k, k in 0:3 }\n");
  ASSERT_TRUE(win.def);
  EXPECT_TRUE(win.file->diagnostics.empty()) << all_diagnostics(*win.file);
  EXPECT_EQ(bounds(win.index(0, "k")), "[0, 2]");
  EXPECT_EQ(bounds(win.index(0, "i")), "[0, N - 3]");
}

TEST(RangeInference, ExistsClauseContributesConstraints) {
  Kernel k = check_ok("def ex(float(N) A, float(M) B) -> (O) { O(i) = A(i) where exists B(i) }\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);  // B counts as read
  EXPECT_TRUE(k.index(0, "i").hi == SymExpr::min(P("M") - SymExpr(1), P("N") - SymExpr(1))) << k.index(0, "i").hi.str();
  auto sh = shapes_evaluate(*k.def, {{"N", 5}, {"M", 3}});
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(shape_of(*k.def, *sh, "O").extent, (Shape{3}));

  // The only constraint can come from the exists clause.
  Kernel only = check_ok("def fill(float(N) A) -> (O) { O(i) = 1.0 where exists A(i) }\n");
  ASSERT_TRUE(only.def);
  EXPECT_TRUE(only.file->diagnostics.empty()) << all_diagnostics(*only.file);
  EXPECT_EQ(bounds(only.index(0, "i")), "[0, N - 1]");

  // With an offset: i + 2 <= M - 1.
  Kernel off = check_ok("def ex2(float(N) A, float(M) B) -> (O) { O(i) = A(i) where exists B(i + 2) }\n");
  ASSERT_TRUE(off.def);
  auto sh2 = shapes_evaluate(*off.def, {{"N", 6}, {"M", 5}});
  ASSERT_TRUE(sh2.ok()) << sh2.error();
  EXPECT_EQ(shape_of(*off.def, *sh2, "O").extent, (Shape{3}));
  auto sh3 = shapes_evaluate(*off.def, {{"N", 2}, {"M", 10}});
  ASSERT_TRUE(sh3.ok()) << sh3.error();
  EXPECT_EQ(shape_of(*off.def, *sh3, "O").extent, (Shape{2}));
}

TEST(RangeInference, SoftmaxTemporaries) {
  Kernel k = check_ok("def softmax(float(N,D) X) -> (Y) {\n"
                      "    mx(n)  max=! X(n, d)\n"
                      "    e(n,d) =     exp(X(n, d) - mx(n))\n"
                      "    s(n)   +=!   e(n, d)\n"
                      "    Y(n,d) =     e(n, d) / s(n)\n"
                      "}\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  EXPECT_EQ(k.def->num_params, 1);
  EXPECT_EQ(k.def->num_outputs, 1);
  ASSERT_EQ(k.def->stmts.size(), 4u);
  for (const char* t : {"mx", "e", "s"}) EXPECT_EQ(k.tensor(t).role, TensorRole::Temporary) << t;
  EXPECT_EQ(k.tensor("Y").role, TensorRole::Output);
  EXPECT_EQ(k.tensor("mx").first_writer, 0);
  EXPECT_EQ(k.tensor("e").first_writer, 1);
  EXPECT_EQ(k.tensor("s").first_writer, 2);
  EXPECT_EQ(k.tensor("Y").first_writer, 3);
  ASSERT_EQ(k.tensor("mx").rank(), 1);
  EXPECT_EQ(bounds(k.tensor("mx"), 0), "[0, N - 1]");
  ASSERT_EQ(k.tensor("e").rank(), 2);
  EXPECT_EQ(bounds(k.tensor("e"), 1), "[0, D - 1]");
  EXPECT_EQ(bounds(k.tensor("s"), 0), "[0, N - 1]");
  // The reduction index of s comes from the temporary e.
  EXPECT_EQ(bounds(k.index(2, "d")), "[0, D - 1]");

  auto sizes = sizes_bind(*k.def, {}, {{"X", {ScalarType::Float32, {2, 3}}}});
  ASSERT_TRUE(sizes.ok()) << sizes.error();
  auto sh = shapes_evaluate(*k.def, *sizes);
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(shape_of(*k.def, *sh, "mx").extent, (Shape{2}));
  EXPECT_EQ(shape_of(*k.def, *sh, "e").extent, (Shape{2, 3}));
  EXPECT_EQ(shape_of(*k.def, *sh, "s").extent, (Shape{2}));
  EXPECT_EQ(shape_of(*k.def, *sh, "Y").extent, (Shape{2, 3}));

  // Temporaries cannot be supplied.
  auto bad = sizes_bind(*k.def, {}, {{"X", {ScalarType::Float32, {2, 3}}}, {"s", {ScalarType::Float32, {2}}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(has_substr(bad.error(), "temporary"));
}

TEST(RangeInference, DeclaredOutputShape) {
  Kernel k = check_ok("def inc(float(N) A) -> (float(N) O) { O(i) = A(i) + 1 }\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  EXPECT_TRUE(k.tensor("O").shape_known);
  EXPECT_EQ(bounds(k.tensor("O"), 0), "[0, N - 1]");
  EXPECT_EQ(bounds(k.index(0, "i")), "[0, N - 1]");

  // The declared shape wins for the tensor; the statement writes where both fit.
  Kernel m = check_ok("def part(float(N) A) -> (float(M) O) { O(i) = A(i) + 1 }\n");
  ASSERT_TRUE(m.def);
  EXPECT_EQ(bounds(m.tensor("O"), 0), "[0, M - 1]");
  EXPECT_TRUE(m.index(0, "i").hi == SymExpr::min(P("M") - SymExpr(1), P("N") - SymExpr(1)));
  auto sh = shapes_evaluate(*m.def, {{"N", 3}, {"M", 2}});
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(shape_of(*m.def, *sh, "O").extent, (Shape{2}));
  EXPECT_EQ(range_of(*sh, 0, "i"), (std::pair<int64_t, int64_t>{0, 1}));
  // A declared output supplied by the caller binds its sizes.
  auto sizes = sizes_bind(*m.def, {}, {{"A", {ScalarType::Float32, {3}}}, {"O", {ScalarType::Float32, {7}}}});
  ASSERT_TRUE(sizes.ok()) << sizes.error();
  EXPECT_EQ(sizes->at("M"), 7);

  Kernel lit = check_ok("def four(float(N) A) -> (float(4) O) { O(i) = A(i) }\n");
  ASSERT_TRUE(lit.def);
  auto sh2 = shapes_evaluate(*lit.def, {{"N", 10}});
  ASSERT_TRUE(sh2.ok()) << sh2.error();
  EXPECT_EQ(shape_of(*lit.def, *sh2, "O").extent, (Shape{4}));
  EXPECT_EQ(range_of(*sh2, 0, "i"), (std::pair<int64_t, int64_t>{0, 3}));
}

TEST(RangeInference, ReadingAnOutputWrittenEarlier) {
  Kernel k = check_ok("def conv2d(float(N,C,H,W) I, float(F,C,KH,KW) Wt, float(F) Bias) -> (O) {\n"
                      "    O(n, f, h, w) +=! I(n, c, h + kh, w + kw) * Wt(f, c, kh, kw)\n"
                      "    O(n, f, h, w)  =  O(n, f, h, w) + Bias(f)\n"
                      "}\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  EXPECT_EQ(k.tensor("O").first_writer, 0);
  EXPECT_EQ(bounds(k.index(1, "h")), "[0, H - KH]");
  EXPECT_TRUE(k.index(1, "w").hi == P("W") - P("KW"));
  EXPECT_EQ(bounds(k.index(1, "f")), "[0, F - 1]");
  auto sh = shapes_evaluate(*k.def, {{"N", 2}, {"C", 1}, {"H", 3}, {"W", 4}, {"F", 2}, {"KH", 2}, {"KW", 2}});
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(range_of(*sh, 1, "h"), (std::pair<int64_t, int64_t>{0, 1}));
  EXPECT_EQ(range_of(*sh, 1, "w"), (std::pair<int64_t, int64_t>{0, 2}));
  EXPECT_EQ(shape_of(*k.def, *sh, "O").extent, (Shape{2, 2, 2, 3}));

  // A shifted read of the earlier result narrows the later statement only.
  Kernel s = check_ok("def smooth(float(N) A) -> (float(N) O) {\n"
                      "    O(i) = A(i)\n"
                      "    O(i) = O(i - 1)\n"
                      "}\n");
  ASSERT_TRUE(s.def);
  EXPECT_EQ(bounds(s.index(0, "i")), "[0, N - 1]");
  EXPECT_EQ(bounds(s.index(1, "i")), "[1, N - 1]");
}

TEST(RangeInference, TwoInputsOfDifferentSizesTakeTheSmaller) {
  Kernel k = check_ok("def add(float(N) A, float(M) B) -> (O) { O(i) = A(i) + B(i) }\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  const SemaIndex& i = k.index(0, "i");
  EXPECT_TRUE(i.lo == SymExpr(0));
  EXPECT_TRUE(i.hi == SymExpr::min(P("N") - SymExpr(1), P("M") - SymExpr(1))) << i.hi.str();
  for (auto [n, m] : std::vector<std::pair<int64_t, int64_t>>{{4, 6}, {7, 6}, {5, 5}}) {
    auto sizes = sizes_bind(*k.def, {}, {{"A", {ScalarType::Float32, {n}}}, {"B", {ScalarType::Float32, {m}}}});
    ASSERT_TRUE(sizes.ok()) << sizes.error();
    auto sh = shapes_evaluate(*k.def, *sizes);
    ASSERT_TRUE(sh.ok()) << sh.error();
    EXPECT_EQ(shape_of(*k.def, *sh, "O").extent, (Shape{std::min(n, m)})) << n << " " << m;
  }
  // Both dimensions of one tensor on one index: the diagonal of a rectangle.
  Kernel d = check_ok("def diag(float(N,M) A) -> (O) { O(i) = A(i, i) }\n");
  ASSERT_TRUE(d.def);
  auto sh = shapes_evaluate(*d.def, {{"N", 6}, {"M", 4}});
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(shape_of(*d.def, *sh, "O").extent, (Shape{4}));
}

// ----------------------------------------------------------------------------- warnings

TEST(RangeInferenceWarnings, UncheckedPreconditionOnCoupledSubscript) {
  Kernel k = check_ok("def tri(float(N) A, float(M) B, float(K) C) -> (O) {\n"
                      "    O(i, j) = A(i) * B(j) * C(i + j)\n"
                      "}\n");
  ASSERT_TRUE(k.def);
  auto w = k.warnings();
  ASSERT_EQ(w.size(), 1u) << all_diagnostics(*k.file);
  EXPECT_EQ(text_of(*k.file, *w[0]), "i + j");
  EXPECT_TRUE(has_substr(w[0]->message, "precondition not checked at run time"));
  EXPECT_TRUE(has_substr(w[0]->message, "'C'"));
  EXPECT_TRUE(has_substr(w[0]->message, "M + N - 2"));
  // i and j come from A and B alone.
  EXPECT_EQ(bounds(k.index(0, "i")), "[0, N - 1]");
  EXPECT_EQ(bounds(k.index(0, "j")), "[0, M - 1]");
  int leftovers = 0;
  for (const AccessConstraint& c : k.stmt(0).constraints)
    if (!c.used_to_solve) {
      ++leftovers;
      EXPECT_EQ(k.def->tensors[size_t(c.tensor)].name, "C");
    }
  EXPECT_EQ(leftovers, 1);
}

TEST(RangeInferenceWarnings, AReadUnderAConditionThatNarrowsARangeSaysSo) {
  // Per §4 the read in the branch bounds kh too: with y over the whole image, only the
  // middle tap keeps I's read inside, so the sum has one tap, not the padded three.
  Kernel k = check_ok(
      "def same(float(N,C,H,W) I, float(F,C,KH,KW) Wt) -> (O) {\n"
      "    O(n, f, y, x) +=! (y + kh - 1 >= 0 && y + kh - 1 < H && x + kw - 1 >= 0 && x + kw - 1 < W) ? "
      "I(n, c, y + kh - 1, x + kw - 1) * Wt(f, c, kh, kw) : 0.0 where y in 0:H, x in 0:W\n"
      "}\n");
  ASSERT_TRUE(k.def);
  auto w = k.warnings();
  ASSERT_EQ(w.size(), 2u) << all_diagnostics(*k.file);
  EXPECT_EQ(text_of(*k.file, *w[0]), "y + kh - 1");
  EXPECT_TRUE(has_substr(w[0]->message, "bounds index 'kh' to"));
  EXPECT_TRUE(has_substr(w[0]->message, "its other reads allow [0, KH - 1]"));
  EXPECT_TRUE(has_substr(w[0]->message, "'where kh in 0:KH'"));
  EXPECT_TRUE(has_substr(w[1]->message, "index 'kw'"));
  // Alone: the output's rows come from the guarded read only.
  Kernel alone = check_ok("def shift(float(N) A) -> (O) { O(i) = (i >= 1) ? A(i - 1) : 0.0 }\n");
  ASSERT_TRUE(alone.def);
  auto a = alone.warnings();
  ASSERT_EQ(a.size(), 1u) << all_diagnostics(*alone.file);
  EXPECT_TRUE(has_substr(a[0]->message, "index 'i' takes its range [1, N] only from 'A(... i - 1 ...)'"));
  // The read that narrows is the one named, and a bound the language cannot read back
  // gets no concrete `where`.
  Kernel two = check_ok(
      "def f(float(N) A, float(N) B, float(N) C) -> (O) { O(i) = A(i) + ((i < N) ? B(N - 1 - i) + C(i - 1) : 0.0) }\n");
  ASSERT_TRUE(two.def);
  ASSERT_EQ(two.warnings().size(), 1u) << all_diagnostics(*two.file);
  EXPECT_EQ(text_of(*two.file, *two.warnings()[0]), "i - 1");
  Kernel halves = check_ok("def f(float(N) A, float(M) B) -> (O) { O(i) = A(2 * i) + ((i > 0) ? B(i - 1) : 0.0) }\n");
  ASSERT_TRUE(halves.def);
  ASSERT_EQ(halves.warnings().size(), 1u) << all_diagnostics(*halves.file);
  EXPECT_TRUE(has_substr(halves.warnings()[0]->message, "'where i in lo:hi'"));
  // With the ranges written out: nothing to say.
  Kernel written = check_ok(
      "def same(float(N,C,H,W) I, float(F,C,KH,KW) Wt) -> (O) {\n"
      "    O(n, f, y, x) +=! (y + kh - 1 >= 0 && y + kh - 1 < H) ? I(n, c, y + kh - 1, x) * Wt(f, c, kh, 0) : 0.0 "
      "where y in 0:H, x in 0:W, kh in 0:KH\n"
      "}\n");
  ASSERT_TRUE(written.def);
  EXPECT_TRUE(written.warnings().empty()) << all_diagnostics(*written.file);
}

TEST(RangeInferenceWarnings, NoWarningWhenThePreconditionIsProvable) {
  Kernel k = check_ok("def copy(float(N) X) -> (O) { O(i) = X(i) where i in 0:N }\n");
  ASSERT_TRUE(k.def);
  EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  // Also provable: a window that stays inside by construction.
  Kernel p = check_ok("def pairs(float(N) X) -> (O) { O(i) = X(i) + X(i + 1) where i in 0:N-1 }\n");
  ASSERT_TRUE(p.def);
  EXPECT_TRUE(p.file->diagnostics.empty()) << all_diagnostics(*p.file);
}

TEST(RangeInferenceWarnings, WhereRangeWiderThanTheTensor) {
  Kernel k = check_ok("def over(float(N) X) -> (O) { O(i) = X(i) where i in 0:N+1 }\n");
  ASSERT_TRUE(k.def);
  auto w = k.warnings();
  ASSERT_EQ(w.size(), 1u) << all_diagnostics(*k.file);
  EXPECT_EQ(text_of(*k.file, *w[0]), "i");
  EXPECT_TRUE(has_substr(w[0]->message, "precondition not checked"));
  EXPECT_TRUE(has_substr(w[0]->message, "'X'"));
  auto sh = shapes_evaluate(*k.def, {{"N", 3}});
  ASSERT_FALSE(sh.ok());
  EXPECT_TRUE(has_substr(sh.error(), "out of bounds"));
}

TEST(RangeInferenceWarnings, DataDependentSubscript) {
  Kernel k = check_ok("def embed(float(V,D) E, int32(L) Ids) -> (O) { O(l, d) = E(Ids(l), d) }\n");
  ASSERT_TRUE(k.def);
  auto w = k.warnings();
  ASSERT_EQ(w.size(), 1u) << all_diagnostics(*k.file);
  EXPECT_EQ(text_of(*k.file, *w[0]), "Ids(l)");
  EXPECT_TRUE(has_substr(w[0]->message, "reads data"));
  EXPECT_TRUE(has_substr(w[0]->message, "'E'"));
  EXPECT_EQ(bounds(k.index(0, "l")), "[0, L - 1]");
  EXPECT_EQ(bounds(k.index(0, "d")), "[0, D - 1]");
  bool found = false;
  for (const AccessConstraint& c : k.stmt(0).constraints)
    if (c.data_dependent) {
      found = true;
      EXPECT_FALSE(c.affine);
      EXPECT_EQ(k.def->tensors[size_t(c.tensor)].name, "E");
      EXPECT_EQ(c.dim, 0);
    }
  EXPECT_TRUE(found);
  // Not checked by shapes_evaluate either: the data decides.
  auto sh = shapes_evaluate(*k.def, {{"V", 5}, {"D", 2}, {"L", 3}});
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(shape_of(*k.def, *sh, "O").extent, (Shape{3, 2}));
}

TEST(RangeInferenceWarnings, AccumulatingIntoAnUnwrittenOutput) {
  Kernel k = check_ok("def acc(float(N) A) -> (O) { O(i) += A(i) }\n");
  ASSERT_TRUE(k.def);
  auto w = k.warnings();
  ASSERT_EQ(w.size(), 1u) << all_diagnostics(*k.file);
  EXPECT_EQ(text_of(*k.file, *w[0]), "+=");
  EXPECT_TRUE(has_substr(w[0]->message, "'O'"));
  EXPECT_TRUE(has_substr(w[0]->message, "+=!"));
  EXPECT_TRUE(k.stmt(0).accumulates_into_existing);

  // Other reductions warn the same way.
  Kernel mx = check_ok("def acc(float(N,M) A) -> (O) { O(i) max= A(i, j) }\n");
  ASSERT_TRUE(mx.def);
  ASSERT_EQ(mx.warnings().size(), 1u) << all_diagnostics(*mx.file);
  EXPECT_EQ(text_of(*mx.file, *mx.warnings()[0]), "max=");

  // No warning once an earlier statement has written it, nor with '!'.
  Kernel ok1 = check_ok("def acc(float(N) A) -> (O) {\n  O(i) = A(i)\n  O(i) += A(i)\n}\n");
  ASSERT_TRUE(ok1.def);
  EXPECT_TRUE(ok1.file->diagnostics.empty()) << all_diagnostics(*ok1.file);
  EXPECT_TRUE(ok1.stmt(1).accumulates_into_existing);
  Kernel ok2 = check_ok("def acc(float(N) A) -> (O) { O(i) +=! A(i) }\n");
  ASSERT_TRUE(ok2.def);
  EXPECT_TRUE(ok2.file->diagnostics.empty()) << all_diagnostics(*ok2.file);
  EXPECT_FALSE(ok2.stmt(0).accumulates_into_existing);
}

TEST(RangeInferenceWarnings, AccumulatingIntoATemporary) {
  Kernel k = check_ok("def acc(float(N) A) -> (O) {\n  t(i) += A(i)\n  O(i) = t(i)\n}\n");
  ASSERT_TRUE(k.def);
  auto w = k.warnings();
  ASSERT_EQ(w.size(), 1u) << all_diagnostics(*k.file);
  EXPECT_EQ(text_of(*k.file, *w[0]), "+=");
  EXPECT_TRUE(has_substr(w[0]->message, "temporary"));
  EXPECT_TRUE(has_substr(w[0]->message, "'t'"));
  EXPECT_EQ(k.tensor("t").role, TensorRole::Temporary);
}

TEST(RangeInferenceWarnings, UnusedParameter) {
  Kernel k = check_ok("def first(float(N) A, float(N) Z) -> (O) { O(i) = A(i) }\n");
  ASSERT_TRUE(k.def);
  auto w = k.warnings();
  ASSERT_EQ(w.size(), 1u) << all_diagnostics(*k.file);
  EXPECT_EQ(text_of(*k.file, *w[0]), "Z");
  EXPECT_TRUE(has_substr(w[0]->message, "'Z'"));
  EXPECT_TRUE(has_substr(w[0]->message, "never read"));
}

// ---------------------------------------------------------------- range inference errors

TEST(RangeInferenceErrors, UnboundedLeftHandIndex) {
  auto f = check_source("test.tc", "def three(float(N) A) -> (O) { O(i, j) = A(0) * 3 }\n");
  auto errors = with_severity(*f, Severity::Error);
  ASSERT_EQ(errors.size(), 2u) << all_diagnostics(*f);
  EXPECT_EQ(text_of(*f, *errors[0]), "i");
  EXPECT_TRUE(has_substr(errors[0]->message, "'i'"));
  EXPECT_TRUE(has_substr(errors[0]->message, "where i in"));
  EXPECT_EQ(text_of(*f, *errors[1]), "j");
  ASSERT_EQ(f->defs.size(), 1u);
  EXPECT_FALSE(f->defs[0].ok);
}

TEST(RangeInferenceErrors, RoundThatSolvesNothing) {
  auto f = check_source("test.tc", "def skew(float(N,M) I) -> (O) { O(i) +=! I(10+i-j, i+j) }\n");
  auto errors = with_severity(*f, Severity::Error);
  ASSERT_EQ(errors.size(), 1u) << all_diagnostics(*f);
  EXPECT_TRUE(has_substr(errors[0]->message, "'i'"));
  EXPECT_TRUE(has_substr(errors[0]->message, "'j'"));
  EXPECT_TRUE(has_substr(errors[0]->message, "where"));
}

TEST(RangeInferenceErrors, IndexOnlyInsideDataDependentSubscript) {
  auto f = check_source("test.tc", "def g(float(N) A, int32(M) I) -> (O) { O(i) = A(I(0) + i) }\n");
  auto errors = with_severity(*f, Severity::Error);
  ASSERT_EQ(errors.size(), 1u) << all_diagnostics(*f);
  EXPECT_EQ(text_of(*f, *errors[0]), "i");
  EXPECT_TRUE(has_substr(errors[0]->message, "data-dependent"));
  EXPECT_TRUE(has_substr(errors[0]->message, "where i in"));
  // With a where clause it is accepted, and the access becomes a warning.
  Kernel k = check_ok("def g(float(N) A, int32(M) I) -> (O) { O(i) = A(I(0) + i) where i in 0:N }\n");
  ASSERT_TRUE(k.def);
  ASSERT_EQ(k.warnings().size(), 1u) << all_diagnostics(*k.file);
  EXPECT_TRUE(has_substr(k.warnings()[0]->message, "reads data"));
}

// ------------------------------------------------------------ sizes_bind and shapes_evaluate

constexpr const char* kMatmul = "def matmul(float(M,K) A, float(K,N) B) -> (C) { C(m, n) +=! A(m, k) * B(k, n) }\n";

TEST(ShapesErrors, MissingSize) {
  Kernel k = check_ok("def widen(float(N) A) -> (float(M) O) { O(i) = A(i) }\n");
  ASSERT_TRUE(k.def);
  auto sizes = sizes_bind(*k.def, {}, {{"A", {ScalarType::Float32, {3}}}});
  ASSERT_FALSE(sizes.ok());
  EXPECT_TRUE(has_substr(sizes.error(), "size M"));
  EXPECT_TRUE(has_substr(sizes.error(), "not bound"));
  auto with_m = sizes_bind(*k.def, {{"M", 5}}, {{"A", {ScalarType::Float32, {3}}}});
  ASSERT_TRUE(with_m.ok()) << with_m.error();
  EXPECT_EQ(*with_m, (SizeMap{{"M", 5}, {"N", 3}}));

  // shapes_evaluate itself refuses a map that lacks a size.
  Kernel mm = check_ok(kMatmul);
  ASSERT_TRUE(mm.def);
  auto sh = shapes_evaluate(*mm.def, {{"M", 2}, {"K", 3}});
  ASSERT_FALSE(sh.ok());
  EXPECT_TRUE(has_substr(sh.error(), "missing"));
  // Nothing supplied at all.
  auto none = sizes_bind(*mm.def, {}, {});
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(has_substr(none.error(), "not bound"));
}

TEST(ShapesErrors, ZeroSize) {
  Kernel k = check_ok(kMatmul);
  ASSERT_TRUE(k.def);
  auto from_shape = sizes_bind(*k.def, {}, {{"A", {ScalarType::Float32, {2, 0}}}, {"B", {ScalarType::Float32, {0, 4}}}});
  ASSERT_FALSE(from_shape.ok());
  EXPECT_TRUE(has_substr(from_shape.error(), "'A'"));
  EXPECT_TRUE(has_substr(from_shape.error(), "between 1"));
  auto explicit_zero = sizes_bind(*k.def, {{"K", 0}}, {});
  ASSERT_FALSE(explicit_zero.ok());
  EXPECT_TRUE(has_substr(explicit_zero.error(), "K=0"));
  auto negative = sizes_bind(*k.def, {{"M", -3}}, {});
  ASSERT_FALSE(negative.ok());
}

TEST(ShapesErrors, InconsistentInputShapes) {
  Kernel k = check_ok(kMatmul);
  ASSERT_TRUE(k.def);
  auto sizes = sizes_bind(*k.def, {}, {{"A", {ScalarType::Float32, {2, 3}}}, {"B", {ScalarType::Float32, {4, 5}}}});
  ASSERT_FALSE(sizes.ok());
  EXPECT_TRUE(has_substr(sizes.error(), "size K"));
  EXPECT_TRUE(has_substr(sizes.error(), "'B'"));
  // An explicit size that the shapes contradict.
  auto explicit_k = sizes_bind(*k.def, {{"K", 7}}, {{"A", {ScalarType::Float32, {2, 3}}}});
  ASSERT_FALSE(explicit_k.ok());
  EXPECT_TRUE(has_substr(explicit_k.error(), "K"));
  // Rank, element type and unknown names are refused with the tensor named.
  auto rank = sizes_bind(*k.def, {}, {{"A", {ScalarType::Float32, {6}}}});
  ASSERT_FALSE(rank.ok());
  EXPECT_TRUE(has_substr(rank.error(), "'A'"));
  auto dtype = sizes_bind(*k.def, {}, {{"B", {ScalarType::Float64, {3, 4}}}});
  ASSERT_FALSE(dtype.ok());
  EXPECT_TRUE(has_substr(dtype.error(), "'B'"));
  EXPECT_TRUE(has_substr(dtype.error(), "float64"));
  auto unknown = sizes_bind(*k.def, {}, {{"Q", {ScalarType::Float32, {1}}}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(has_substr(unknown.error(), "'Q'"));
  auto not_a_size = sizes_bind(*k.def, {{"Z", 3}}, {});
  ASSERT_FALSE(not_a_size.ok());
  EXPECT_TRUE(has_substr(not_a_size.error(), "'Z'"));
  // A literal dimension must match exactly.
  Kernel lit = check_ok("def f(float(3, N) A) -> (O) { O(i, j) = A(i, j) }\n");
  ASSERT_TRUE(lit.def);
  auto wrong = sizes_bind(*lit.def, {}, {{"A", {ScalarType::Float32, {4, 2}}}});
  ASSERT_FALSE(wrong.ok());
  EXPECT_TRUE(has_substr(wrong.error(), "must be 3"));
}

TEST(ShapesErrors, EmptyRangeWhenTheKernelIsLargerThanTheImage) {
  Kernel k = check_ok("def conv(float(N,C,H,W) I, float(F,C,KH,KW) Wt) -> (O) {\n"
                      "    O(n, f, h, w) +=! I(n, c, h + kh, w + kw) * Wt(f, c, kh, kw)\n"
                      "}\n");
  ASSERT_TRUE(k.def);
  auto sizes = sizes_bind(*k.def, {},
                          {{"I", {ScalarType::Float32, {1, 1, 3, 3}}}, {"Wt", {ScalarType::Float32, {2, 1, 4, 2}}}});
  ASSERT_TRUE(sizes.ok()) << sizes.error();
  auto sh = shapes_evaluate(*k.def, *sizes);
  ASSERT_FALSE(sh.ok());
  EXPECT_TRUE(has_substr(sh.error(), "'h'"));
  EXPECT_TRUE(has_substr(sh.error(), "empty range"));
  EXPECT_TRUE(has_substr(sh.error(), "KH=4"));
  // KH == H still gives one output row.
  auto fits = shapes_evaluate(*k.def, {{"N", 1}, {"C", 1}, {"H", 3}, {"W", 3}, {"F", 2}, {"KH", 3}, {"KW", 2}});
  ASSERT_TRUE(fits.ok()) << fits.error();
  EXPECT_EQ(shape_of(*k.def, *fits, "O").extent, (Shape{1, 2, 1, 2}));
}

TEST(ShapesErrors, UnprovablePreconditionCheckedAgainstConcreteSizes) {
  Kernel k = check_ok("def tri(float(N) A, float(M) B, float(K) C) -> (O) {\n"
                      "    O(i, j) = A(i) * B(j) * C(i + j)\n"
                      "}\n");
  ASSERT_TRUE(k.def);
  // i + j reaches N + M - 2 = 5, and C has K elements.
  auto bad = shapes_evaluate(*k.def, {{"N", 3}, {"M", 4}, {"K", 5}});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(has_substr(bad.error(), "out of bounds"));
  EXPECT_TRUE(has_substr(bad.error(), "'C'"));
  EXPECT_TRUE(has_substr(bad.error(), "[0, 5]"));
  for (int64_t kk : {6, 7, 100}) {
    auto good = shapes_evaluate(*k.def, {{"N", 3}, {"M", 4}, {"K", kk}});
    ASSERT_TRUE(good.ok()) << "K=" << kk << ": " << good.error();
    EXPECT_EQ(shape_of(*k.def, *good, "O").extent, (Shape{3, 4}));
  }
}

TEST(ShapesErrors, SizesFromHeaderCombineWithInputs) {
  std::string src = "# sizes: M=2 K=3 N=4\n"
                    "def matmul(float(M,K) A, float(K,N) B) -> (C) { C(m, n) +=! A(m, k) * B(k, n) }\n";
  SizeMap header = sizes_from_header(src);
  EXPECT_EQ(header, (SizeMap{{"K", 3}, {"M", 2}, {"N", 4}}));
  Kernel k = check_ok(src);
  ASSERT_TRUE(k.def);
  auto sizes = sizes_bind(*k.def, header, {});
  ASSERT_TRUE(sizes.ok()) << sizes.error();
  auto sh = shapes_evaluate(*k.def, *sizes);
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(shape_of(*k.def, *sh, "C").extent, (Shape{2, 4}));
  EXPECT_EQ(sizes_describe(*k.def, *sizes), "M=2 K=3 N=4");
  // An input that disagrees with an explicit size is refused.
  auto clash = sizes_bind(*k.def, header, {{"A", {ScalarType::Float32, {5, 3}}}});
  ASSERT_FALSE(clash.ok());
  EXPECT_TRUE(has_substr(clash.error(), "M"));
}

TEST(ShapesErrors, SelectEntryAmongSeveralDefs) {
  auto f = check_source("two.tc",
                        "def a(float(N) X) -> (O) { O(i) = X(i) }\n"
                        "def b(float(N) X) -> (O) { O(i) = X(2*i) }\n");
  ASSERT_FALSE(f->has_errors()) << all_diagnostics(*f);
  auto none = select_entry(*f, "");
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(has_substr(none.error(), "--entry"));
  auto b = select_entry(*f, "b");
  ASSERT_TRUE(b.ok()) << b.error();
  EXPECT_EQ((*b)->name, "b");
  auto sh = shapes_evaluate(**b, {{"N", 5}});
  ASSERT_TRUE(sh.ok()) << sh.error();
  EXPECT_EQ(sh->tensors[size_t((*b)->find_tensor("O"))].extent, (Shape{3}));
  auto missing = select_entry(*f, "c");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(has_substr(missing.error(), "'c'"));
}

}  // namespace
}  // namespace tcs
