// A loop the options both vectorise and unroll in full is vectorised along itself, then
// unrolled (codegen/LlvmEmitter.cpp, loop_metadata): LLVM, left to itself, unrolls such a
// loop first and then vectorises the rows around it, with a gather and a scatter for every
// vector.
#include <gtest/gtest.h>

#include "common/CompiledAgainstInterpreter.h"

namespace tcs {
namespace {

TEST(VectorLoops, ARowUnrolledInFullIsVectorisedAlongItselfNotAcrossTheRows) {
  // Attention's scaling of its scores, after their product: rows of 32 in blocks of 8,
  // each block's rows and columns unrolled in full, the columns 16 lanes wide.
  testing_support::Built b = testing_support::build_and_run(
      "def s(float(B,T,S) X) -> (Y) {\n  Y(b, t, s) = X(b, t, s) + 1\n  Y(b, t, s) = Y(b, t, s) * 0.125\n}\n",
      {{"B", 2}, {"T", 32}, {"S", 32}}, {},
      R"({"outerScheduleFusionStrategy": "Min", "tile": [1, 32, 32], "registerTile": [1, 8, 32], "cpu": {"vectorWidth": 16}})");
  EXPECT_NE(b.c.find("vector(16) unroll(full)"), std::string::npos) << b.c;
  EXPECT_EQ(b.ir.find("llvm.masked.gather"), std::string::npos);
  EXPECT_EQ(b.ir.find("llvm.masked.scatter"), std::string::npos);
  EXPECT_NE(b.ir.find("<16 x float>"), std::string::npos);
}

}  // namespace
}  // namespace tcs
