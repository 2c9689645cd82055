// Register tiles beyond matmul: a convolution's output channels by its width, with the
// accumulators carried through every summed loop (c, kh, kw) and the vector loop's edge
// masked instead of falling back to scalar loops. Each case is checked against the
// interpreter, and the LLVM IR is read for the shape that makes it fast.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <limits>
#include <map>

#include "Compiler.h"
#include "codegen/CpuKernel.h"
#include "lang/Frontend.h"
#include "runtime/Compare.h"
#include "runtime/Interpreter.h"
#include "runtime/RandomInputs.h"
#include "support/HostCpu.h"
#include "targets/cpu/CpuTarget.h"

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
  std::string llvm, c, assembly;
};

// Compiles `text` under the options, runs it on random inputs against the interpreter
// and returns the LLVM IR and the C text (and the assembly when asked for).
Texts check(const std::string& text, const Case& c, bool assembly = false) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", text);
  EXPECT_FALSE(checked->has_errors());
  const SemaDef& def = checked->defs.at(0);
  auto shapes = shapes_evaluate(def, c.sizes);
  EXPECT_TRUE(shapes) << shapes.error();
  auto options = mapping_options_from_json(c.options);
  EXPECT_TRUE(options) << options.error();
  std::vector<std::string> kinds = {"llvm", "c"};
  if (assembly) kinds.push_back("asm");
  auto compiled = compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *options, CodegenChoice{"cpu", kinds, true});
  EXPECT_TRUE(compiled) << c.what << ": " << compiled.error();
  if (!compiled) return {};
  auto inputs = random_inputs(def, *shapes, 5);
  auto want = interpret(def, *shapes, *inputs);
  // Outputs start as NaN, not zero: an initialisation the code skips without starting its
  // sums from zero shows.
  TensorMap supplied = *inputs;
  for (size_t t = 0; t < def.tensors.size(); ++t)
    if (def.tensors[t].role == TensorRole::Output) {
      Tensor nan = *Tensor::zeros(def.tensors[t].type, shapes->tensors[t].extent);
      std::fill_n(nan.as<float>(), nan.data.size() / sizeof(float), std::numeric_limits<float>::quiet_NaN());
      supplied[def.tensors[t].name] = std::move(nan);
    }
  auto got = compiled->kernel->run(supplied);
  EXPECT_TRUE(got) << got.error();
  for (const auto& [name, t] : *want) {
    TensorComparison cmp = compare_tensors(name, got->at(name), t);
    EXPECT_TRUE(cmp.ok) << c.what << ": " << cmp.problem;
  }
  return {compiled->text("llvm").text, compiled->text("c").text, assembly ? compiled->text("asm").text : ""};
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

TEST(RegisterTile, AStridedConvolutionsReadsAreWholeLoadsShuffledNotGathers) {
  // The input moves 2 (and 3) elements a lane: the tile loads the span and picks every
  // second (third) element. These reads had kept the tile out of the micro-kernel, and
  // LLVM gathered them one lane at a time (the bundled conv2d_strided at 2 GFLOP/s).
  for (int stride : {2, 3}) {
    std::string text = "def conv(float(N,C,H,W) I, float(F,C,KH,KW) Wt) -> (O) {\n"
                       "    O(n, f, h, w) +=! I(n, c, " + std::to_string(stride) + "*h + kh, " + std::to_string(stride) +
                       "*w + kw) * Wt(f, c, kh, kw)\n}";
    for (const Case& c : std::vector<Case>{
             {"stride " + std::to_string(stride) + ", width 9", {{"N", 2}, {"C", 3}, {"H", 19}, {"W", 19}, {"F", 8}, {"KH", 3}, {"KW", 3}},
              conv_options("[1, 8, 1, 16, 3, 3, 3]", "[1, 4, 1, 16]")},
             {"stride " + std::to_string(stride) + ", rows of 20 or 30 in tiles of 16", {{"N", 2}, {"C", 2}, {"H", 9}, {"W", 61}, {"F", 4}, {"KH", 3}, {"KW", 3}},
              conv_options("[1, 4, 1, 16, 2, 3, 3]", "[1, 4, 1, 16]")},
         }) {
      std::string ir = check(text, c).llvm;
      EXPECT_EQ(count(ir, "llvm.masked.gather"), 0) << c.what;
      EXPECT_GT(count(ir, "shufflevector"), 0) << c.what << ": no strided load";
    }
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

constexpr const char* kBmm = "def bmm(float(B,M,K) X, float(B,K,N) Y) -> (Z) { Z(b, m, n) +=! X(b, m, k) * Y(b, k, n) }";

std::string bmm_options(const std::string& tile, bool accumulate = true) {
  return R"({"outerScheduleFusionStrategy": "Min", "tile": )" + tile + R"(, "registerTile": [1, 8, 32], "cpu": {"vectorWidth": 16, )" +
         R"("pointLoopOrder": [0, 3, 1, 2], "registerAccumulate": )" + (accumulate ? "true" : "false") + "}}";
}

// Each reduction's first summed-index values (PolyStmt::reduction_first), as the schedule
// pass finds them, by statement name.
std::map<std::string, std::vector<int64_t>> reduction_starts(const std::string& text, const SizeMap& sizes,
                                                             const std::string& options) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", text);
  const SemaDef& def = checked->defs.at(0);
  auto shapes = shapes_evaluate(def, sizes);
  auto o = mapping_options_from_json(options);
  auto lowered = lower_to_loop_nest(def, *shapes, *o, cpu_target().mapping_passes);
  EXPECT_TRUE(lowered) << lowered.error();
  std::map<std::string, std::vector<int64_t>> out;
  if (lowered)
    for (const PolyStmt& s : lowered->nest.stmts) out[s.name] = s.reduction_first;
  return out;
}

TEST(RegisterTile, APartialRowTileRunsOnlyItsOwnRows) {
  // 8-row tiles over M rows end with M mod 8: that tile runs as exact tiles of 4, 2 and 1
  // rows as the remainder's bits say (26 rows: 2; 19: 2 + 1), not as 8 rows clamped onto
  // the last. Each row of a tile stores its second vector (10 of 26 columns) masked once,
  // so the kernel holds 8 such stores for the full tile and one per row of the partial
  // one; clamped, it held 16. Every remainder is checked against the interpreter, with
  // NaN outputs.
  for (int m = 17; m <= 26; ++m) {
    SizeMap sizes = {{"B", 2}, {"M", m}, {"N", 26}, {"K", 9}};
    std::string ir = check(kBmm, {"M " + std::to_string(m), sizes, bmm_options("[1, 32, 512, 256]")}).llvm;
    // LLVM copies the full tile once more for 23 rows (tiles 0, 1 and 2 unrolled).
    if (m % 8 && m != 23) {
      EXPECT_EQ(count(ir, "call void @llvm.masked.store"), 8 + m % 8) << "M " << m;
    }
  }
  // K in cache tiles of 4: the sub-tiles start from zero in the first one only.
  SizeMap sizes = {{"B", 2}, {"M", 26}, {"N", 26}, {"K", 9}};
  check(kBmm, {"M 26, K in tiles of 4", sizes, bmm_options("[1, 32, 512, 4]")});
}

TEST(RegisterTile, TheScheduleSaysWhereEachSumBegins) {
  using V = std::vector<int64_t>;
  SizeMap bmm_sizes = {{"B", 3}, {"M", 26}, {"N", 26}, {"K", 9}};
  EXPECT_EQ(reduction_starts(kBmm, bmm_sizes, bmm_options("[1, 96, 512, 256]"))["S0"], V{0});
  EXPECT_EQ(reduction_starts(kBmm, bmm_sizes, bmm_options("[1, 96, 512, 256]"))["S0_init"], V{});
  std::string from_two = "def bmm(float(B,M,K) X, float(B,K,N) Y) -> (Z) { Z(b, m, n) +=! X(b, m, k) * Y(b, k, n) where k in 2:K }";
  EXPECT_EQ(reduction_starts(from_two, bmm_sizes, bmm_options("[1, 96, 512, 256]"))["S0"], V{2});
  SizeMap conv_sizes = {{"N", 2}, {"C", 3}, {"H", 6}, {"W", 16}, {"F", 8}, {"KH", 3}, {"KW", 3}};
  EXPECT_EQ(reduction_starts(kConv, conv_sizes, conv_options("[1, 8, 1, 16, 3, 3, 3]", "[1, 4, 1, 16]"))["S0"], (V{0, 0, 0}));
}

TEST(RegisterTile, AccumulatorsStartFromZeroWhereTheTileBeginsTheSum) {
  // The output's zeroing nest is not emitted: the register tiles start their accumulators
  // from zero where their summed loops begin the sum (always when one cache tile holds all
  // of K; when a cache tile loop splits it, only in its first tile).
  auto parallel_functions = [](const std::string& ir) { return count(ir, "define internal void @tcs_parallel_"); };
  SizeMap sizes = {{"B", 3}, {"M", 26}, {"N", 26}, {"K", 9}};
  EXPECT_EQ(parallel_functions(check(kBmm, {"K whole", sizes, bmm_options("[1, 96, 512, 256]")}).llvm), 1);
  EXPECT_EQ(parallel_functions(check(kBmm, {"K in tiles of 4", sizes, bmm_options("[1, 96, 512, 4]")}).llvm), 1);
  std::string from_two = "def bmm(float(B,M,K) X, float(B,K,N) Y) -> (Z) { Z(b, m, n) +=! X(b, m, k) * Y(b, k, n) where k in 2:K }";
  EXPECT_EQ(parallel_functions(check(from_two, {"k from 2", sizes, bmm_options("[1, 96, 512, 4]")}).llvm), 1);
  Case conv{"conv", {{"N", 2}, {"C", 3}, {"H", 6}, {"W", 16}, {"F", 8}, {"KH", 3}, {"KW", 3}},
            conv_options("[1, 8, 1, 16, 3, 3, 3]", "[1, 4, 1, 16]")};
  EXPECT_EQ(parallel_functions(check(kConv, conv).llvm), 1);
  // Without register tiles the zeroing nest stays (below: in the C text), and runs in the
  // product's loop over the batch (loopnest/JoinParallelLoops.h).
  Texts plain = check(kBmm, {"no register tile", sizes, bmm_options("[1, 96, 512, 256]", false)});
  EXPECT_EQ(parallel_functions(plain.llvm), 1);
  // The C text shows the same kernel: no zeroing nest where the IR has none, and each sum
  // starting from zero where its summed index begins; the zeroing where it stays.
  Texts folded = check(kBmm, {"K in tiles of 4, C", sizes, bmm_options("[1, 96, 512, 4]")});
  EXPECT_EQ(count(folded.c, "= 0;  // S0_init"), 0) << folded.c;
  EXPECT_EQ(count(folded.c, "// S0_init: not run"), 1) << folded.c;
  EXPECT_GT(count(folded.c, " == 0 ? 0 : Z["), 0) << folded.c;
  EXPECT_EQ(count(plain.c, "= 0;  // S0_init"), 1) << plain.c;
  EXPECT_EQ(count(plain.c, "? 0 :"), 0) << plain.c;
}

}  // namespace
}  // namespace tcs

namespace tcs {
namespace {

TEST(RegisterTile, AWeightGradientsStridedOutputIsGatheredAndScatteredOncePerTile) {
  // dW(k, c, r, s) along c is 9 elements a lane. Its 8 x 32 tile had been no register tile
  // (its lanes must be one element apart) and ran as ordinary loops, 1.7 GFLOP/s at
  // 32x64x28² -> 64; now its 16 vector accumulators are gathered before the summed loops
  // and scattered after them (99 GFLOP/s with I packed channels last).
  const char* wgrad = R"(
def conv_wgrad(float(N,K,H,W) dO, float(N,C,H2,W2) I) -> (dW) {
    dW(k, c, r, s) +=! dO(n, k, h, w) * I(n, c, h + r, w + s) where r in 0:3, s in 0:3
})";
  std::string options = R"({"outerScheduleFusionStrategy": "Min", "tile": [16, 32, 3, 3, 1, 6, 6],
      "registerTile": [8, 32, 1, 1], "cpu": {"vectorWidth": 16, "pointLoopOrder": [2, 3, 4, 5, 6, 0, 1],
      "registerAccumulate": true, "pack": [{"tensor": "I", "depth": 5, "order": [0, 2, 3, 1]}]}})";
  SizeMap sizes = {{"N", 2}, {"K", 16}, {"H", 6}, {"W", 6}, {"C", 32}, {"H2", 8}, {"W2", 8}};
  Texts t = check(wgrad, {"wgrad", sizes, options});
  EXPECT_EQ(count(t.llvm, "call void @llvm.masked.scatter"), 16) << "one store per accumulator";
  // Partial tiles: 13 rows (clamped) and 20 channels (a masked vector).
  check(wgrad, {"wgrad partial tiles", {{"N", 2}, {"K", 13}, {"H", 6}, {"W", 6}, {"C", 20}, {"H2", 8}, {"W2", 8}}, options});
}

}  // namespace
}  // namespace tcs

namespace tcs {
namespace {

// A "same" convolution written with its bounds test (lang/DomainGuard): the test becomes
// the statement's domain, so the vector loop over x runs from max(0, 1 - s) to
// min(W - 1, W - s) and the rows over y start at max(0, 1 - r): bounds that move with the
// summed loops. The register tile masks each step's lanes outside them. It had been no
// register tile, and before the guard became the domain every point tested the guard and
// checked its read: 156 ms at 8x64x28² -> 64, against 6.6 now and 4.7 for the valid
// convolution of a padded copy.
constexpr const char* kPadded = R"(
def padded(float(N,C,H,W) I, float(K,C,3,3) Wt) -> (O) {
    O(n, k, y, x) +=! (y + r - 1 >= 0 && y + r - 1 < H && x + s - 1 >= 0 && x + s - 1 < W) ? I(n, c, y + r - 1, x + s - 1) * Wt(k, c, r, s) : 0.0 where y in 0:H, x in 0:W, r in 0:3, s in 0:3
})";

// Indices n, k, y, x, r, s, c: x's tile of 32 in two vectors, 8 output channels.
std::string padded_options(const std::string& tile) {
  return R"({"outerScheduleFusionStrategy": "Min", "tile": )" + tile +
         R"(, "registerTile": [1, 8, 1, 32], "cpu": {"vectorWidth": 16, "pointLoopOrder": [0, 2, 4, 5, 6, 1, 3], "registerAccumulate": true}})";
}

TEST(RegisterTile, APaddedConvolutionsMovingEdgesAreMaskedPerStep) {
  // Width 28: a full vector and 12 lanes; 17: a rest of one lane (a masked pair); 40 in
  // tiles of 32: a run-time edge. H = 2: every row loses a tap.
  for (const Case& c : std::vector<Case>{
           {"width 28", {{"N", 2}, {"C", 3}, {"H", 5}, {"W", 28}, {"K", 8}}, padded_options("[1, 8, 1, 32, 3, 3, 3]")},
           {"width 17", {{"N", 2}, {"C", 2}, {"H", 4}, {"W", 17}, {"K", 9}}, padded_options("[1, 8, 1, 32, 3, 3, 2]")},
           {"width 40, tiles of 32", {{"N", 2}, {"C", 2}, {"H", 3}, {"W", 40}, {"K", 8}}, padded_options("[1, 8, 1, 32, 3, 3, 2]")},
           {"two rows", {{"N", 2}, {"C", 2}, {"H", 2}, {"W", 6}, {"K", 8}}, padded_options("[1, 8, 1, 32, 3, 3, 2]")},
       }) {
    Texts t = check(kPadded, c);
    EXPECT_GT(count(t.llvm, "%acc"), 0) << c.what << ": no register tile";
    EXPECT_EQ(count(t.llvm, "atomicrmw"), 0) << c.what << ": a read is still checked";
  }
}

// With AVX-512, each tap's lanes inside the image sum as one masked FMA. LLVM unswitches
// the taps' loop, and a lane mask it can see is a constant became a blend of the
// accumulators (`shufflevector`), which its x86 back end lowers as an FMA into a fresh
// register, a masked move and a copy: the bundled conv2d_same at 8 x 64 x 28^2 -> 64 took
// 6.4-6.6 ms so on one Zen 4 core, 4.7-4.8 with masked FMAs (the valid convolution of a
// padded copy: 4.7-4.8). Without mask registers the constant masks stay (immediate blends
// and plain loads: AVX2 code ran 1.25x slower with masks made at run time).
TEST(RegisterTile, APaddedConvolutionsMaskedTapsAreMaskedFmasNotBlends) {
  Case c{"16 channels", {{"N", 2}, {"C", 16}, {"H", 8}, {"W", 28}, {"K", 8}}, padded_options("[1, 8, 1, 32, 3, 3, 16]")};
  Texts t = check(kPadded, c, true);
  EXPECT_GT(count(t.llvm, "%acc"), 0) << "no register tile";
  if (host_vector_bytes() < 64) GTEST_SKIP() << "no AVX-512 on this host: its constant masks stay (checked against the interpreter only)";
  EXPECT_EQ(count(t.llvm, "= shufflevector <16 x float> %acc"), 0) << "accumulators blended under a constant mask";
  const std::string& asm_text = t.assembly;
  EXPECT_GT(count(asm_text, "vfmadd231ps"), 0) << asm_text;
  int masked_moves = 0;
  for (size_t at = asm_text.find("vmovap"); at != std::string::npos; at = asm_text.find("vmovap", at + 1))
    if (asm_text.substr(at, asm_text.find('\n', at) - at).find("{%k") != std::string::npos) ++masked_moves;
  EXPECT_EQ(masked_moves, 0) << asm_text;
}

TEST(RegisterTile, AStridedPaddedConvolutionsRowsAndLanesStartWhereTheSummedLoopsSay) {
  // Stride 2: isl writes x's start as (1 - s + floor(s / 2)), with no term that does not
  // move, and y's as max(2 c, ...): the tile starts where that start is least over s.
  const char* strided = R"(
def strided(float(N,C,H,W) I, float(K,C,3,3) Wt) -> (O) {
    O(n, k, y, x) +=! (2*y + r - 1 >= 0 && 2*y + r - 1 < H && 2*x + s - 1 >= 0 && 2*x + s - 1 < W) ? I(n, c, 2*y + r - 1, 2*x + s - 1) * Wt(k, c, r, s) : 0.0 where y in 0:H/2, x in 0:W/2, r in 0:3, s in 0:3
})";
  std::string options = R"({"outerScheduleFusionStrategy": "Min", "tile": [1, 4, 2, 16, 3, 3, 3], "registerTile": [1, 4, 2, 16],
      "cpu": {"vectorWidth": 16, "pointLoopOrder": [0, 4, 5, 6, 1, 2, 3], "registerAccumulate": true}})";
  for (int w : {28, 11}) {
    Texts t = check(strided, {"width " + std::to_string(w), {{"N", 2}, {"C", 3}, {"H", 9}, {"W", w}, {"K", 8}}, options});
    EXPECT_GT(count(t.llvm, "%acc"), 0) << "width " << w << ": no register tile";
  }
}

TEST(RegisterTile, ReadsAtPointsTheMovingBoundsLeaveOutAreNeitherMadeNorChecked) {
  // A read the same for every lane that moves with a row whose bounds move (M(y + r - 1)
  // at y = 0, r = 0 is M(-1)), and a read the guard does not keep inside, checked when it
  // runs (J's subscript reaches -1 at a masked lane): such tiles run as ordinary loops, so
  // no load leaves the tensor and no error is raised where the interpreter raises none.
  std::string options = R"({"outerScheduleFusionStrategy": "Min", "tile": [1, 4, 2, 16, 3, 3, 3], "registerTile": [1, 4, 2, 16],
      "cpu": {"vectorWidth": 16, "pointLoopOrder": [0, 4, 5, 6, 1, 2, 3], "registerAccumulate": true}})";
  SizeMap sizes = {{"N", 2}, {"C", 3}, {"H", 6}, {"W", 20}, {"K", 4}, {"D", 25}};
  for (const char* extra : {"M(y + r - 1)", "J(y + r + x + s - 2)"}) {
    std::string text = std::string(R"(
def padded(float(N,C,H,W) I, float(K,C,3,3) Wt, float(H) M, float(D) J) -> (O) {
    O(n, k, y, x) +=! (y + r - 1 >= 0 && y + r - 1 < H && x + s - 1 >= 0 && x + s - 1 < W) ? I(n, c, y + r - 1, x + s - 1) * Wt(k, c, r, s) * )") +
                       extra + R"( : 0.0 where y in 0:H, x in 0:W, r in 0:3, s in 0:3
})";
    check(text, {extra, sizes, options});
  }
  // A tile whose start is left to its lanes keeps only its own accumulators: x runs from
  // max(32 c, 20) to min(32 c + 31, 43), and 20..43 is the shorter span, so the second
  // tile's lanes start at 20; those up to 31 are the first tile's, which another thread
  // may be writing, and are not loaded and stored again.
  std::string late = R"(
def late(float(M,K) A) -> (O) {
    O(x) +=! (x >= 20) ? A(x, k) : 0.0 where x in 0:M
})";
  std::string tiles = R"({"outerScheduleFusionStrategy": "Min", "tile": [32, 4], "registerTile": [32],
      "cpu": {"vectorWidth": 8, "pointLoopOrder": [1, 0], "registerAccumulate": true}})";
  check(late, {"start at 20", {{"M", 44}, {"K", 5}}, tiles});
}

TEST(RegisterTile, ATapOutsideTheImageAddsNothingEvenTimesAnInfiniteWeight) {
  // The guard's zero is no product: where tap (0, 0) falls outside, an infinite weight
  // there must not turn the sum into NaN (0 * inf), as a masked lane's zero would.
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", kPadded);
  const SemaDef& def = checked->defs.at(0);
  auto shapes = shapes_evaluate(def, {{"N", 2}, {"C", 2}, {"H", 4}, {"W", 20}, {"K", 8}});
  ASSERT_TRUE(shapes) << shapes.error();
  auto options = mapping_options_from_json(padded_options("[1, 8, 1, 32, 3, 3, 2]"));
  auto compiled = compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *options, CodegenChoice{"cpu", {}, true});
  ASSERT_TRUE(compiled) << compiled.error();
  TensorMap inputs = *random_inputs(def, *shapes, 3);
  Tensor& wt = inputs.at("Wt");
  for (int64_t kc = 0; kc < 8 * 2; ++kc) wt.as<float>()[kc * 9] = std::numeric_limits<float>::infinity();
  std::fill_n(inputs.at("I").as<float>(), 2 * 2 * 4 * 20, 1.0f);
  auto want = interpret(def, *shapes, inputs);
  auto got = compiled->kernel->run(inputs);
  ASSERT_TRUE(want && got);
  const Tensor& o = got->at("O");
  EXPECT_TRUE(std::isfinite(o.as<float>()[0])) << "the corner's sum";
  TensorComparison cmp = compare_tensors("O", o, want->at("O"));
  EXPECT_TRUE(cmp.ok) << cmp.problem;
}

TEST(RegisterTile, APaddedConvolutionCountsTheFlopsOfEveryTap) {
  // As a padded convolution's flops are counted by convention: 2 N K H W C R S.
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", kPadded);
  const SemaDef& def = checked->defs.at(0);
  auto shapes = shapes_evaluate(def, {{"N", 2}, {"C", 3}, {"H", 5}, {"W", 7}, {"K", 4}});
  ASSERT_TRUE(shapes);
  EXPECT_EQ(kernel_flops(def, *shapes), 2.0 * 2 * 4 * 5 * 7 * 3 * 9);
}

// Cache tiles that are not whole register tiles leave register tiles straddling two at
// their edges (run-time bounds, sums through memory). Legal, and it still computes the
// right sums, but the model notes it and names the multiple that would keep them whole;
// a tile that covers the loop or is a multiple gets no note. The register tiles inside a
// cache tile run whole: the test for them goes outside the summed loop, its copy with
// the register tile's own bounds (sgemm 1024^3 in tiles of 128 rows of 12 ran 39
// GFLOP/s on an Intel core without that copy, 154 with it, 185 in tiles of 132).
TEST(RegisterTile, CacheTilesThatAreNotWholeRegisterTilesAreNoted) {
  const std::string mm = "def mm(float(M,K) A, float(K,N) B) -> (C) {\n  C(m, n) +=! A(m, k) * B(k, n)\n}\n";
  auto notes = [&](const std::string& tile, SizeMap sizes) {
    std::string options = R"({"outerScheduleFusionStrategy": "Min", "tile": )" + tile +
                          R"(, "registerTile": [12, 16], "cpu": {"vectorWidth": 8, "pointLoopOrder": [2, 0, 1], "registerAccumulate": true}})";
    std::string c = check(mm, {"tile " + tile, sizes, options}).c;
    if (tile == "[32, 16, 8]") {
      EXPECT_NE(c.find("if ((((12 * c3) >= (32 * c0))"), std::string::npos) << "a whole register tile inside: " << c;
      EXPECT_NE(c.find("for (int64_t c6 = (12 * c3); c6 <= ((12 * c3) + 11); c6++)"), std::string::npos) << c;
      EXPECT_LT(c.find("if ("), c.find("accumulators in registers")) << c;
    }
    std::shared_ptr<const CheckedFile> checked = check_source("k.tc", mm);
    const SemaDef& def = checked->defs.at(0);
    auto compiled = compile_kernel(KernelSetup{checked, &def, {}, *shapes_evaluate(def, sizes)},
                                   *mapping_options_from_json(options), CodegenChoice{"cpu", {}, false});
    EXPECT_TRUE(compiled) << compiled.error();
    std::string all;
    if (compiled)
      for (const std::string& n : compiled->lowering.model.notes) all += n + "\n";
    return all;
  };
  SizeMap sizes = {{"M", 70}, {"K", 24}, {"N", 32}};
  std::string straddling = notes("[32, 16, 8]", sizes);
  EXPECT_NE(straddling.find("tile[0] (32) is not a multiple of registerTile[0] (12) over S0"), std::string::npos) << straddling;
  EXPECT_NE(straddling.find("tile[0] 36 keeps them whole"), std::string::npos) << straddling;
  EXPECT_EQ(straddling.find("tile[1]"), std::string::npos) << straddling;
  EXPECT_EQ(notes("[36, 16, 8]", sizes).find("not a multiple"), std::string::npos);
  EXPECT_EQ(notes("[80, 16, 8]", sizes).find("not a multiple"), std::string::npos) << "one tile over all 70 rows";
}

}  // namespace
}  // namespace tcs
