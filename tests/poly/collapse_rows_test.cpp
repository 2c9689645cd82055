// Two nested loops run as one where every address moves with the outer loop by the inner
// loop's whole run (loopnest/CollapseRows.cpp): an elementwise kernel over short rows and
// a global pooling become one long vector loop and still compute what the interpreter
// computes; a read a row longer than the loop, a transposed read, and an index used as a
// value keep their loops.
#include <gtest/gtest.h>

#include "common/CompiledAgainstInterpreter.h"

namespace tcs {
namespace {

// Each kernel below: its C and LLVM IR under the default preset at its sizes, after
// checking that it computes what the interpreter computes on one and on two threads.
using testing_support::Built;
using testing_support::build_and_run;

int loops_in(const std::string& c) {
  int n = 0;
  for (size_t at = c.find("for ("); at != std::string::npos; at = c.find("for (", at + 1)) ++n;
  return n;
}

TEST(CollapseRows, AnElementwiseKernelOverShortRowsIsOneLoopPerImage) {
  Built b = build_and_run("def r(float(N,C,H,W) X, float(N,C,H,W) R) -> (Y) {\n"
                          "  Y(n, c, h, w) = fmax(X(n, c, h, w) + R(n, c, h, w), 0)\n}\n",
                          {{"N", 3}, {"C", 16}, {"H", 7}, {"W", 28}});
  EXPECT_EQ(loops_in(b.c), 2) << "the image's rows and channels are not one loop\n" << b.c;
  EXPECT_NE(b.c.find("<= 3135;"), std::string::npos) << b.c;  // 16 x 7 x 28 pixels, the images on threads
  // The C text addresses the collapsed rows through the one index, with no term left for
  // the outer loop that is gone.
  EXPECT_EQ(b.c.find("(0) *"), std::string::npos) << b.c;
  EXPECT_NE(b.c.find("Y[(c0) * 3136 + c"), std::string::npos) << b.c;
}

TEST(CollapseRows, AGlobalPoolingSumsEachChannelInOneVectorLoop) {
  for (int64_t side : {7, 14}) {
    Built b = build_and_run("def gap(float(N,C,H,W) I) -> (O) {\n  O(n, c) +=! I(n, c, h, w)\n"
                            "  O(n, c) = O(n, c) / float(H * W)\n}\n",
                            {{"N", 2}, {"C", 24}, {"H", side}, {"W", side}});
    EXPECT_NE(b.c.find("<= " + std::to_string(side * side - 1) + ";"), std::string::npos) << side << "\n" << b.c;
    EXPECT_EQ(b.ir.find("llvm.masked.gather"), std::string::npos) << side;
  }
}

TEST(CollapseRows, LoopsWhoseAddressesDoNotRunOnStayApart) {
  // A read one column on, in rows one longer than the loop: the next row does not start
  // where the loop stopped.
  Built shifted = build_and_run("def s(float(M,N) I) -> (O) {\n  O(i, j) = I(i, j + 1)\n}\n", {{"M", 9}, {"N", 20}});
  EXPECT_EQ(loops_in(shifted.c), 2) << shifted.c;
  // The summed indices are values too: their pixel's weight depends on them.
  Built weighted = build_and_run("def w(float(N,H,W) I) -> (O) {\n  O(n) +=! I(n, h, w) * float(h + 2 * w)\n}\n",
                                 {{"N", 4}, {"H", 6}, {"W", 12}});
  EXPECT_EQ(loops_in(weighted.c), 3) << weighted.c;
}

}  // namespace
}  // namespace tcs
