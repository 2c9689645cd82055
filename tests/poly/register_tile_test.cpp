// Register tiles beyond matmul: a convolution's output channels by its width, with the
// accumulators carried through every summed loop (c, kh, kw) and the vector loop's edge
// masked instead of falling back to scalar loops. Each case is checked against the
// interpreter, and the LLVM IR is read for the shape that makes it fast.
#include <gtest/gtest.h>

#include "Compiler.h"
#include "codegen/CpuKernel.h"
#include "lang/Frontend.h"
#include "runtime/Compare.h"
#include "runtime/Interpreter.h"
#include "runtime/RandomInputs.h"

namespace tcs {
namespace {

constexpr const char* kConv = R"(
def conv(float(N,C,H,W) I, float(F,C,KH,KW) Wt) -> (O) {
    O(n, f, h, w) +=! I(n, c, h + kh, w + kw) * Wt(f, c, kh, kw)
})";

struct Case {
  std::string what;
  SizeMap sizes;
  std::string options;
};

struct Texts {
  std::string llvm, c;
};

// Compiles `text` under the options, runs it on random inputs against the interpreter
// and returns the LLVM IR and the C text.
Texts check(const std::string& text, const Case& c) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", text);
  EXPECT_FALSE(checked->has_errors());
  const SemaDef& def = checked->defs.at(0);
  auto shapes = shapes_evaluate(def, c.sizes);
  EXPECT_TRUE(shapes) << shapes.error();
  auto options = mapping_options_from_json(c.options);
  EXPECT_TRUE(options) << options.error();
  auto compiled = compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *options, CodegenChoice{"cpu", {"llvm", "c"}, true});
  EXPECT_TRUE(compiled) << c.what << ": " << compiled.error();
  if (!compiled) return {};
  auto inputs = random_inputs(def, *shapes, 5);
  auto want = interpret(def, *shapes, *inputs);
  auto got = compiled->kernel->run(*inputs);
  EXPECT_TRUE(got) << got.error();
  for (const auto& [name, t] : *want) {
    TensorComparison cmp = compare_tensors(name, got->at(name), t);
    EXPECT_TRUE(cmp.ok) << c.what << ": " << cmp.problem;
  }
  return {compiled->text("llvm").text, compiled->text("c").text};
}

std::string conv_options(const std::string& tile, const std::string& reg) {
  return R"({"outerScheduleFusionStrategy": "Min", "tile": )" + tile + R"(, "registerTile": )" + reg +
         R"(, "cpu": {"vectorWidth": 16, "pointLoopOrder": [0, 2, 4, 5, 6, 1, 3], "registerAccumulate": true}})";
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(RegisterTile, ConvolutionTilesMatchTheInterpreterAtEveryEdge) {
  // Output width 14: one 16-lane vector with two lanes off; 20 (tile 16): a full vector
  // and a run-time edge; 37: a partial f tile too.
  for (const Case& c : std::vector<Case>{
           {"width 14, constant mask", {{"N", 2}, {"C", 3}, {"H", 6}, {"W", 16}, {"F", 8}, {"KH", 3}, {"KW", 3}},
            conv_options("[1, 8, 1, 16, 3, 3, 3]", "[1, 4, 1, 16]")},
           {"width 20 in tiles of 16, run-time mask", {{"N", 2}, {"C", 2}, {"H", 5}, {"W", 22}, {"F", 8}, {"KH", 3}, {"KW", 3}},
            conv_options("[1, 8, 1, 16, 2, 3, 3]", "[1, 4, 1, 16]")},
           {"partial f and w tiles", {{"N", 2}, {"C", 2}, {"H", 4}, {"W", 39}, {"F", 6}, {"KH", 3}, {"KW", 3}},
            conv_options("[1, 4, 1, 32, 2, 3, 3]", "[1, 4, 1, 16]")},
       }) {
    std::string ir = check(kConv, c).llvm;
    EXPECT_GT(count(ir, "llvm.masked.load"), 0) << c.what << ": the edge is masked, not scalar";
    EXPECT_GT(count(ir, "llvm.masked.store"), 0) << c.what;
  }
}

TEST(RegisterTile, TheFullTileTestGoesOutsideEverySummedLoop) {
  // c, kh and kw all run around the register tile, so the test for a full tile (w + 15
  // within the output) is made once per tile, outside the c loop: the full-tile copy
  // carries its accumulators through all three loops.
  Case c{"width 20", {{"N", 2}, {"C", 4}, {"H", 5}, {"W", 22}, {"F", 4}, {"KH", 3}, {"KW", 3}},
         conv_options("[1, 4, 1, 16, 4, 3, 3]", "[1, 4, 1, 16]")};
  std::string text = check(kConv, c).c;
  size_t split = text.find("if (");
  size_t first_summed = text.find("accumulators in registers");
  ASSERT_NE(split, std::string::npos) << text;
  EXPECT_LT(split, first_summed) << text;
  EXPECT_EQ(count(text, "if ("), 1) << text;
}

TEST(RegisterTile, TwentyFourVectorsUnrollThoughTheyHoldMoreThan256Points) {
  // 12 rows of two 16-lane vectors: 384 statement copies but 24 vector operations. Rolled,
  // its accumulators went through memory and batched matmul ran 17 times slower; unrolled,
  // they stay in registers. Past 32 vectors (and past 256 points) it stays rolled.
  const char* bmm = "def bmm(float(B,M,K) X, float(B,K,N) Y) -> (Z) { Z(b, m, n) +=! X(b, m, k) * Y(b, k, n) }";
  auto options = [](int rows, int cols) {
    return R"({"outerScheduleFusionStrategy": "Min", "tile": [1, 96, 512, 256], "registerTile": [1, )" + std::to_string(rows) +
           ", " + std::to_string(cols) +
           R"(], "cpu": {"vectorWidth": 16, "pointLoopOrder": [0, 3, 1, 2], "registerAccumulate": true}})";
  };
  SizeMap sizes = {{"B", 3}, {"M", 26}, {"N", 26}, {"K", 9}};
  std::string unrolled = check(bmm, {"12 x 32", sizes, options(12, 32)}).c;
  EXPECT_GT(count(unrolled, "unroll(full)"), 0) << unrolled;
  EXPECT_GT(count(unrolled, "accumulators in registers"), 0) << unrolled;
  std::string rolled = check(bmm, {"26 x 48", {{"B", 2}, {"M", 26}, {"N", 48}, {"K", 5}}, options(26, 48)}).c;
  EXPECT_EQ(count(rolled, "unroll(full)"), 0) << rolled;
}

}  // namespace
}  // namespace tcs
