// A temporary that each iteration of a parallel loop writes and reads on its own, once the
// loops over it are joined, lives in a buffer of that iteration and its tensor is never
// touched (loopnest/PrivateTemporaries.cpp). Each kernel is checked against the
// interpreter on one and two threads; the options are spelled out so that every host
// compiles the same loops.
#include <gtest/gtest.h>

#include "common/CompiledAgainstInterpreter.h"
#include "common/ExampleText.h"

namespace tcs {
namespace {

using testing_support::Built;
using testing_support::build_and_run;

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

bool kept(const Built& b, const std::string& tensor) {
  return b.c.find("(void)" + tensor + ";  // kept in local buffers") != std::string::npos;
}

using testing_support::example;

// kru3's three contractions, each its own nest tiled for its shape, the first behind a
// copy of W2 made once: one loop over the rows M, each row's XW2 and XW1 its own.
TEST(PrivateTemporaries, AChainOfContractionsKeepsEachRowsIntermediatesToItself) {
  Built b = build_and_run(example("kru3.tc").c_str(),
                          {{"M", 8}, {"N0", 16}, {"N1", 16}, {"N2", 16}, {"D0", 8}, {"D1", 8}, {"D2", 8}}, {}, R"({
    "outerScheduleFusionStrategy": "Min", "tile": [1, 1, 16, 512, 256], "registerTile": [1, 1, 4, 16],
    "cpu": {"vectorWidth": 16, "pointLoopOrder": [0, 1, 4, 2, 3], "registerAccumulate": true,
            "pack": [{"tensor": "W2", "depth": 0, "order": [1, 0]}]},
    "statements": {"S1": {"tile": [1, 1, 8, 512, 256]},
                   "S2": {"tile": [1, 4, 2, 16, 16], "registerTile": [1, 4, 2, 16], "cpu": {"pointLoopOrder": [0, 4, 1, 2, 3]}}}})");
  // The loops after the copy join the one inside it.
  EXPECT_EQ(count(b.c, "#pragma omp parallel for"), 1) << b.c;
  EXPECT_EQ(count(b.c, "joined into the loop above"), 2) << b.c;
  EXPECT_TRUE(kept(b, "XW2") && kept(b, "XW1")) << b.c;
  EXPECT_NE(b.c.find("XW2: this iteration's 1 x 16 x 16 x 8 part"), std::string::npos) << b.c;
  EXPECT_EQ(b.c.find("XW2["), std::string::npos) << b.c;
}

// Rows laid end to end as one loop (loopnest/CollapseRows.h) name an element by an index
// that runs past its row: the zeroing and the doubling run through U's 64 elements of each
// image as one loop, the sums row by row. The part kept covers the rows whole.
TEST(PrivateTemporaries, RowsRunAsOneLoopAreKeptWhole) {
  Built b = build_and_run("def f(float(B,T,S,K) X) -> (Y) {\n  U(b, t, s) +=! X(b, t, s, k)\n  Y(b, t, s) = U(b, t, s) * 2\n}\n",
                          {{"B", 2}, {"T", 8}, {"S", 8}, {"K", 4}}, {},
                          R"({"outerScheduleFusionStrategy": "Min", "cpu": {"parallel": true}})");
  EXPECT_NE(b.c.find("<= 63; c2++)"), std::string::npos) << b.c;
  EXPECT_TRUE(kept(b, "U")) << b.c;
  EXPECT_NE(b.c.find("U: this iteration's 1 x 8 x 8 part"), std::string::npos) << b.c;
}

// A copy's loop takes in the loops after it, but none that reads the copied tensor: the
// buffer would stand in for the tensor there too.
TEST(PrivateTemporaries, ALoopJoinsACopysLoopUnlessItReadsTheCopiedTensor) {
  const char* options = R"({"outerScheduleFusionStrategy": "Min", "tile": [1, 512, 256], "registerTile": [1, 16],
      "cpu": {"vectorWidth": 16, "pointLoopOrder": [0, 2, 1], "registerAccumulate": true,
              "pack": [{"tensor": "W", "depth": 0, "order": [1, 0]}]},
      "statements": {"S1": {"tile": [1, 32], "registerTile": [], "cpu": {"pointLoopOrder": [], "pack": [], "registerAccumulate": false}}}})";
  const std::string product = "def f(float(M,K) A, float(N,K) W) -> (Y, Z) {\n  Y(m, n) +=! A(m, k) * W(n, k)\n";
  const SizeMap sizes = {{"M", 16}, {"N", 16}, {"K", 32}};
  Built joined = build_and_run((product + "  Z(m, k) = A(m, k) * Y(m, 0)\n}\n").c_str(), sizes, {}, options);
  EXPECT_NE(joined.c.find("pack a"), std::string::npos) << joined.c;
  EXPECT_EQ(count(joined.c, "#pragma omp parallel for"), 1) << joined.c;
  Built apart = build_and_run((product + "  Z(m, k) = W(m, k) * Y(m, 0)\n}\n").c_str(), sizes, {}, options);
  EXPECT_EQ(count(apart.c, "#pragma omp parallel for"), 2) << apart.c;
}

// Three ways a temporary stays in its tensor: its first statement adds to the zeros the
// tensor starts with; a later nest that does not join reads it across rows; a row of it
// is larger than a buffer may be.
TEST(PrivateTemporaries, ATemporaryStaysInItsTensorWhereABufferOfEachIterationWouldNotDo) {
  const char* rows = R"({"outerScheduleFusionStrategy": "Min", "tile": [1, 64], "cpu": {"parallel": true, "vectorWidth": 16}})";
  const char* doubled_plus_one = "def f(float(N,M) X) -> (Y) {\n  T(i, j) = X(i, j) * 2\n  Y(i, j) = T(i, j) + 1\n}\n";
  Built accumulated = build_and_run("def f(float(N,M) X) -> (Y) {\n  T(i, j) += X(i, j)\n  Y(i, j) = T(i, j) * 2\n}\n",
                                    {{"N", 8}, {"M", 64}}, {}, rows);
  EXPECT_EQ(count(accumulated.c, "#pragma omp parallel for"), 1) << accumulated.c;
  EXPECT_FALSE(kept(accumulated, "T")) << accumulated.c;

  Built transposed = build_and_run("def f(float(N,M) X) -> (Y, Z) {\n  T(i, j) = X(i, j) * 2\n  Y(i, j) = T(i, j) + 1\n"
                                   "  Z(j) +=! T(i, j)\n}\n",
                                   {{"N", 8}, {"M", 8}}, {},
                                   R"({"outerScheduleFusionStrategy": "Min", "tile": [1, 8], "cpu": {"parallel": true}})");
  EXPECT_NE(transposed.c.find("joined into the loop above"), std::string::npos) << transposed.c;
  EXPECT_FALSE(kept(transposed, "T")) << transposed.c;

  Built large = build_and_run(doubled_plus_one, {{"N", 2}, {"M", 300000}}, {}, rows);
  EXPECT_EQ(count(large.c, "#pragma omp parallel for"), 1) << large.c;
  EXPECT_FALSE(kept(large, "T")) << large.c;
  // Two rows of 600 KB: one buffer each would pass the loop's 1 MiB; the first is kept.
  Built two = build_and_run("def f(float(N,M) X) -> (Y) {\n  T(i, j) = X(i, j) * 2\n  U(i, j) = T(i, j) + 1\n"
                            "  Y(i, j) = U(i, j) * 3\n}\n",
                            {{"N", 2}, {"M", 150000}}, {}, rows);
  EXPECT_NE(kept(two, "T"), kept(two, "U")) << two.c;
  Built small = build_and_run(doubled_plus_one, {{"N", 2}, {"M", 3000}}, {}, rows);
  EXPECT_TRUE(kept(small, "T")) << small.c;
}

}  // namespace
}  // namespace tcs
