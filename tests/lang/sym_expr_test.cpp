// Symbolic bounds: canonical form, simplification, evaluation and the non-negativity prover
// that decides which preconditions get a warning.
#include <gtest/gtest.h>

#include "lang/SymExpr.h"

namespace tcs {
namespace {

SymExpr P(const char* n) { return SymExpr::param(n); }

TEST(SymExpr, CanonicalAffineForm) {
  SymExpr e = P("H") - P("KH") + SymExpr(1) - SymExpr(1);
  EXPECT_EQ(e.str(), "H - KH");
  EXPECT_EQ(P("N") + P("M"), P("M") + P("N"));
  EXPECT_EQ((P("N") - P("N")).constant(), 0);
  EXPECT_EQ((P("N") * SymExpr(3) - P("N") * SymExpr(2)).str(), "N");
}

TEST(SymExpr, DivisionAndMinMax) {
  EXPECT_EQ(SymExpr::floordiv(P("N") * SymExpr(2) + SymExpr(3), 2).str(), "N + 1");
  EXPECT_EQ(SymExpr::floordiv(P("B") - SymExpr(1), 2).str(), "floor((B - 1) / 2)");
  EXPECT_EQ(SymExpr::floordiv(SymExpr(-3), 2).constant(), -2);  // toward -infinity
  EXPECT_EQ(SymExpr::ceildiv(SymExpr(7), 2).constant(), 4);
  EXPECT_EQ(SymExpr::min(P("N") - SymExpr(1), P("N")).str(), "N - 1");
  EXPECT_EQ(SymExpr::min(P("N"), P("M")), SymExpr::min(P("M"), P("N")));
  EXPECT_EQ(SymExpr::max(P("N"), P("M")).str(), "max(M, N)");
}

TEST(SymExpr, Evaluate) {
  SizeMap s{{"N", 10}, {"M", 4}};
  EXPECT_EQ((SymExpr::min(P("N"), P("M")) * SymExpr(2) + SymExpr(1)).eval(s), 9);
  EXPECT_EQ(SymExpr::floordiv(P("N") - SymExpr(1), 3).eval(s), 3);
  EXPECT_EQ((P("N") * P("M")).eval(s), 40);
  EXPECT_FALSE(P("Q").eval(s));
}

TEST(SymExpr, ProverUsesSizesAtLeastOne) {
  EXPECT_TRUE((P("N") - SymExpr(1)).provably_nonnegative());
  EXPECT_FALSE((P("N") - SymExpr(2)).provably_nonnegative());
  EXPECT_FALSE((P("N") - P("M")).provably_nonnegative());
  EXPECT_TRUE((P("N") - SymExpr::min(P("N"), P("M"))).provably_nonnegative());
  EXPECT_TRUE((SymExpr::max(P("N"), P("M")) - P("M")).provably_nonnegative());
  EXPECT_FALSE((SymExpr::min(P("N"), P("M")) - P("M")).provably_nonnegative());
  // H - 1 - 2*floor((H - 2) / 2) - 1 >= 0: the maxpool read stays inside H.
  SymExpr h_hi = SymExpr::floordiv(P("H") - SymExpr(2), 2);
  EXPECT_TRUE((P("H") - SymExpr(1) - (h_hi * SymExpr(2) + SymExpr(1))).provably_nonnegative());
}

TEST(SymExpr, OverflowIsNotANumber) {
  SymExpr big(int64_t(1) << 62);
  SymExpr e = big * SymExpr(4);
  EXPECT_TRUE(e.overflowed());
  EXPECT_FALSE(e.eval({}));
  EXPECT_FALSE(e.provably_nonnegative());
}

}  // namespace
}  // namespace tcs
