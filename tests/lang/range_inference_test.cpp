// Range inference (LANGUAGE.md §4), checked twice: symbolically, on the SymExpr bounds that
// Sema leaves on every index and tensor, and numerically, through sizes_bind and
// shapes_evaluate for concrete sizes. The warnings and errors: range_diagnostics_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "common/CheckedDef.h"

namespace tcs {
namespace {

using testing_support::has_substr;
using testing_support::P;
using testing_support::all_diagnostics;
using testing_support::Kernel;
using testing_support::check_ok;
using testing_support::bounds;
using testing_support::range_of;
using testing_support::shape_of;
using testing_support::Shape;

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

}  // namespace
}  // namespace tcs
