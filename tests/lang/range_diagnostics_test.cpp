// The warnings of LANGUAGE.md §4 and §3, the errors of range inference, and those that
// binding and evaluating sizes report (sizes_bind, shapes_evaluate).
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
using testing_support::all_diagnostics;
using testing_support::with_severity;
using testing_support::text_of;
using testing_support::Kernel;
using testing_support::check_ok;
using testing_support::bounds;
using testing_support::shape_of;
using testing_support::Shape;

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

// A reduction reading its own output where the read may land on the element being
// reduced: its value would depend on the order of the reduction indices (the very element
// is an error: tests/data/invalid/142 and 143). A recurrence reading rows finished before
// is fine.
TEST(ReductionReads, AReadThatMayLandOnTheReducedElementIsWarnedOf) {
  for (const char* text : {"def a(float(N, C) X) -> (S) {\n  S(c) +=! X(n, c)\n  S(c) += X(n, c) * S(0)\n}\n",
                           "def b(float(N, N) X) -> (S) {\n  S(i, j) +=! X(i, j)\n  S(i, j) += X(i, k) * S(j, i)\n}\n"}) {
    Kernel k = check_ok(text);
    ASSERT_TRUE(k.def);
    auto w = k.warnings();
    ASSERT_EQ(w.size(), 1u) << all_diagnostics(*k.file);
    EXPECT_EQ(text_of(*k.file, *w[0]), "S");
    EXPECT_TRUE(has_substr(w[0]->message, "lands on the element being reduced"));
  }
  for (const char* text : {"def d(float(N, C) X) -> (S) {\n  S(c) +=! X(n, c)\n  S(c) += X(n, c) * S(c - 1) where c in 1:C\n}\n",
                           "def e(float(T, K) X, float(K, K) U) -> (H) {\n  H(t, j) +=! X(t, j)\n"
                           "  H(t, j) += H(t - 1, k) * U(k, j) where t in 1:T\n}\n"}) {
    Kernel k = check_ok(text);
    ASSERT_TRUE(k.def);
    EXPECT_TRUE(k.file->diagnostics.empty()) << all_diagnostics(*k.file);
  }
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
