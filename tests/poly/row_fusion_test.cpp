// Fusion along rows and the temporaries it makes local (poly/OuterFusion.cpp,
// poly/LocalTemporaries.cpp), and the vectorised min/max reductions
// (codegen/LlvmReduction.cpp): a softmax or a layernorm runs as one parallel loop over
// rows with its temporaries in row buffers, kernels whose rows depend on each other are
// left apart, and every form computes what the interpreter computes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "Compiler.h"
#include "codegen/CpuKernel.h"
#include "common/ExampleText.h"
#include "lang/Frontend.h"
#include "loopnest/StatementGraph.h"
#include "runtime/Compare.h"
#include "runtime/RandomInputs.h"

namespace tcs {
namespace {

struct Built {
  std::shared_ptr<CheckedFile> checked;
  const SemaDef* def = nullptr;
  DefShapes shapes;
  Expected<CompileResult> result = Error{ErrorKind::Internal, "not built"};
};

std::unique_ptr<Built> build(const std::string& text, const SizeMap& sizes, const std::string& options_json = "") {
  auto b = std::make_unique<Built>();
  b->checked = check_source("k.tc", text);
  EXPECT_FALSE(b->checked->has_errors());
  b->def = &b->checked->defs.at(0);
  auto shapes = shapes_evaluate(*b->def, sizes);
  EXPECT_TRUE(shapes) << shapes.error();
  b->shapes = *shapes;
  auto options = mapping_preset("default", *b->def, &b->shapes);
  EXPECT_TRUE(options);
  MappingOptions o = *options;
  if (!options_json.empty()) {
    auto parsed = mapping_options_from_json(options_json);
    EXPECT_TRUE(parsed) << parsed.error();
    o = *parsed;
  }
  b->result = compile_kernel(KernelSetup{b->checked, b->def, {}, b->shapes}, o, CodegenChoice{"cpu", {"c"}, true});
  EXPECT_TRUE(b->result) << b->result.error();
  return b;
}

void expect_matches_interpreter(const Built& b, const TensorMap& inputs, const std::string& what) {
  auto want = interpret(*b.def, b.shapes, inputs);
  ASSERT_TRUE(want) << want.error();
  for (int threads : {1, 2}) {
    b.result->kernel->set_threads(threads);
    auto got = b.result->kernel->run(inputs);
    ASSERT_TRUE(got) << got.error();
    for (const auto& [name, w] : *want) {
      TensorComparison cmp = compare_tensors(name, got->at(name), w);
      EXPECT_TRUE(cmp.ok) << what << ", " << threads << " threads: " << cmp.problem << "\n" << b.result->text("c").text;
    }
  }
}

void expect_matches_interpreter(const Built& b, const std::string& what) {
  auto inputs = random_inputs(*b.def, b.shapes, 3, {});
  ASSERT_TRUE(inputs);
  expect_matches_interpreter(b, *inputs, what);
}

using testing_support::example;

// The loops at the top of the nest, and the temporaries kept in local buffers.
size_t top_loops(const CompileResult& r) {
  size_t n = 0;
  for (const LoopNode& c : r.lowering.nest.root.children) n += c.kind == LoopNode::Kind::For;
  return n;
}
std::vector<std::string> local_temporaries(const CompileResult& r) {
  std::vector<std::string> names = local_temporaries(r.lowering.nest);
  std::sort(names.begin(), names.end());
  return names;
}

TEST(RowFusion, LayernormIsOneParallelLoopWithRowBuffers) {
  auto b = build(example("layernorm.tc"), {{"N", 37}, {"D", 203}});
  ASSERT_TRUE(b->result);
  EXPECT_EQ(top_loops(*b->result), 1u) << b->result->text("c").text;
  EXPECT_TRUE(b->result->lowering.nest.root.children[0].annot.parallel);
  EXPECT_EQ(local_temporaries(*b->result), (std::vector<std::string>{"mean", "var", "xc"}));
  // The C text declares the row, not the whole tensor.
  EXPECT_NE(b->result->text("c").text.find("float xc_pack"), std::string::npos);
  EXPECT_NE(b->result->text("c").text.find("[203];"), std::string::npos) << b->result->text("c").text;
  expect_matches_interpreter(*b, "layernorm");
}

TEST(RowFusion, SoftmaxIsOneParallelLoopWithRowBuffers) {
  auto b = build(example("softmax.tc"), {{"N", 9}, {"D", 100}});
  ASSERT_TRUE(b->result);
  EXPECT_EQ(top_loops(*b->result), 1u) << b->result->text("c").text;
  EXPECT_EQ(local_temporaries(*b->result), (std::vector<std::string>{"ex", "mx", "sm"}));
  // Their full-size tensors are never allocated.
  std::vector<std::string> kept = b->result->kernel->local_temporaries();
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(kept, (std::vector<std::string>{"ex", "mx", "sm"}));
  auto inputs = random_inputs(*b->def, b->shapes, 3, {});
  ASSERT_TRUE(inputs);
  auto buffers = kernel_buffers(*b->def, b->shapes, *inputs, kept);
  ASSERT_TRUE(buffers);
  for (size_t t = 0; t < b->def->tensors.size(); ++t)
    EXPECT_EQ((*buffers)[t].numel() == 0, b->def->tensors[t].role == TensorRole::Temporary) << b->def->tensors[t].name;
  expect_matches_interpreter(*b, "softmax");
}

TEST(RowFusion, MinFusionKeepsThePassesAndTheFullTemporaries) {
  auto b = build(example("layernorm.tc"), {{"N", 8}, {"D", 40}}, R"({"outerScheduleFusionStrategy": "Min"})");
  ASSERT_TRUE(b->result);
  EXPECT_GT(top_loops(*b->result), 1u);
  EXPECT_TRUE(local_temporaries(*b->result).empty());
  expect_matches_interpreter(*b, "layernorm, Min");
}

// What the fusion explorer draws (loopnest/StatementGraph): softmax's four statements and
// their producers, one group when the rows fuse and a group per loop nest under Min.
TEST(RowFusion, StatementGraphShowsTheFusedGroups) {
  auto fused = build(example("softmax.tc"), {{"N", 24}, {"D", 100}});  // enough rows for two threads
  auto apart = build(example("softmax.tc"), {{"N", 24}, {"D", 100}}, R"({"outerScheduleFusionStrategy": "Min"})");
  ASSERT_TRUE(fused->result && apart->result);
  StatementGraph g = statement_graph(*fused->def, fused->shapes, fused->result->lowering.nest);
  StatementGraph m = statement_graph(*apart->def, apart->shapes, apart->result->lowering.nest);
  EXPECT_EQ(g.groups, 1);
  EXPECT_EQ(m.groups, int(top_loops(*apart->result)));
  EXPECT_GT(m.groups, 1);
  for (const StatementGraph* graph : {&g, &m}) {
    std::set<std::string> edges;
    for (const StatementGraph::Edge& e : graph->edges)
      edges.insert(graph->nodes[size_t(e.from)].name + ">" + graph->nodes[size_t(e.to)].name + ":" + e.tensor);
    // mx feeds ex, ex feeds sm and Y, sm feeds Y; each reduction's init feeds it.
    for (const char* want : {"S0>S1:mx", "S1>S2:ex", "S1>S3:ex", "S2>S3:sm", "S0_init>S0:mx", "S2_init>S2:sm"})
      EXPECT_TRUE(edges.count(want)) << want;
    EXPECT_EQ(edges.size(), 6u);
    for (const StatementGraph::Node& n : graph->nodes) EXPECT_GE(n.group, 0) << n.name;
  }
  // The loop structure: one outermost loop fused, the parallel row loop first.
  ASSERT_FALSE(g.loops.empty());
  EXPECT_EQ(g.loops[0].rfind("for ", 0), 0u);
  EXPECT_NE(g.loops[0].find("parallel"), std::string::npos);
  int outermost = 0;
  for (const std::string& l : m.loops) outermost += l.rfind("for ", 0) == 0;
  EXPECT_EQ(outermost, m.groups);
}

TEST(RowFusion, RowsThatReadOtherRowsAreNotFused) {
  // Every row is divided by row 0's sum: the second loop must wait for all of the first.
  auto b = build("def f(float(N,D) X) -> (Y) {\n  s(n) +=! X(n, d)\n  Y(n, d) = X(n, d) / s(0)\n}\n", {{"N", 16}, {"D", 33}});
  ASSERT_TRUE(b->result);
  EXPECT_EQ(top_loops(*b->result), 2u) << b->result->text("c").text;
  EXPECT_TRUE(local_temporaries(*b->result).empty());
  expect_matches_interpreter(*b, "row 0's sum");
}

TEST(RowFusion, ATemporaryReadBeforeItIsWrittenStaysFullSize) {
  // `+=` without `!` adds to the zeros the temporary starts with: a stack buffer would not
  // have them.
  auto b = build("def f(float(N,D) X) -> (Y) {\n  t(n) += X(n, d)\n  Y(n, d) = X(n, d) - t(n)\n}\n", {{"N", 16}, {"D", 33}});
  ASSERT_TRUE(b->result);
  EXPECT_TRUE(local_temporaries(*b->result).empty()) << b->result->text("c").text;
  expect_matches_interpreter(*b, "t += without !");
}

TEST(RowFusion, ATileOfOneIterationKeepsItsTemporariesWhole) {
  // Tiles of 32 rows over 32 rows, each statement in its own nest below: the tile loop
  // runs once, so isl generates no loop there, and a row buffer placed under it was
  // generated once per nest (the row maximum written to one, read from another).
  const std::string options = R"({"outerScheduleFusionStrategy": "Max", "fixParametersBeforeScheduling": false,
                                  "tile": [32, 2], "tileImperfectlyNested": true, "cpu": {"vectorize": false}})";
  auto b = build(example("log_softmax.tc"), {{"N", 32}, {"D", 100}}, options);
  ASSERT_TRUE(b->result);
  EXPECT_TRUE(local_temporaries(*b->result).empty()) << b->result->text("c").text;
  expect_matches_interpreter(*b, "one tile of rows");
  // With two tiles the loop is there, and the rows' temporaries stay in it.
  b = build(example("log_softmax.tc"), {{"N", 64}, {"D", 100}}, options);
  ASSERT_TRUE(b->result);
  EXPECT_EQ(local_temporaries(*b->result), (std::vector<std::string>{"mx", "sm"})) << b->result->text("c").text;
  expect_matches_interpreter(*b, "two tiles of rows");
}

// Loops isl scheduled backwards (a reduction followed by a statement at its first value:
// a layernorm's mean, a bias after a sum) run forwards (poly/ForwardLoops.cpp): no
// subscript walks a negated loop, under every fusion strategy, and the results stay.
TEST(ForwardLoops, NoKernelReadsItsRowsBackwards) {
  for (const char* kernel : {"layernorm.tc", "mean.tc", "fully_connected.tc", "mlp3.tc", "attention.tc", "swiglu_ffn.tc"})
    for (const char* fusion : {"Max", "Preserve3Coincident", "Min"}) {
      SCOPED_TRACE(std::string(kernel) + ", " + fusion);
      auto checked = check_source(kernel, example(kernel));
      ASSERT_FALSE(checked->has_errors());
      SizeMap sizes;
      for (const std::string& p : checked->defs.at(0).size_params) sizes[p] = 24;
      auto b = build(example(kernel), sizes, std::string(R"({"outerScheduleFusionStrategy": ")") + fusion + "\"}");
      ASSERT_TRUE(b->result);
      const std::string& c = b->result->text("c").text;
      EXPECT_EQ(c.find("(-c"), std::string::npos) << c;
      expect_matches_interpreter(*b, std::string(kernel) + ", " + fusion);
    }
}

// Min and max along rows of every length around the vector width, with NaNs, infinities
// and ties where the vector loop's parts meet: the interpreter's result, NaN included.
TEST(VectorReduction, MinAndMaxMatchTheInterpreterWithNaNsAndEdges) {
  const std::string text = "def f(float(N,D) X) -> (mx, mn) {\n  mx(n) max=! X(n, d)\n  mn(n) min=! X(n, d) * 2.0\n}\n";
  for (int64_t d : {1, 3, 15, 16, 17, 63, 64, 65, 100, 129}) {
    const int64_t rows = 12;
    auto b = build(text, {{"N", rows}, {"D", d}});
    ASSERT_TRUE(b->result);
    Tensor x = *Tensor::zeros(ScalarType::Float32, {rows, d});
    float* p = x.as<float>();
    for (int64_t i = 0; i < rows * d; ++i) p[i] = float((i * 37) % 101) / 7.0f - 6.0f;
    p[0 * d + d - 1] = NAN;                          // row 0: NaN in the last lane
    p[1 * d + 0] = NAN;                              // row 1: NaN first
    p[2 * d + d / 2] = INFINITY;                     // row 2: +inf in the middle
    p[3 * d + d / 3] = -INFINITY;                    // row 3: -inf
    for (int64_t j = 0; j < d; ++j) p[4 * d + j] = -INFINITY;  // row 4: all -inf
    for (int64_t j = 0; j < d; ++j) p[5 * d + j] = 1.5f;       // row 5: all equal
    p[6 * d + d - 1] = 1000.0f;                      // row 6: the largest last
    p[7 * d + d - 1] = -1000.0f;                     // row 7: the smallest last
    if (d > 1) p[8 * d + 1] = NAN, p[8 * d + d - 1] = INFINITY;  // row 8: NaN and +inf
    expect_matches_interpreter(*b, {{"X", x}}, "D=" + std::to_string(d));
    auto want = interpret(*b->def, b->shapes, {{"X", x}});
    auto got = b->result->kernel->run({{"X", x}});
    ASSERT_TRUE(want && got);
    for (const char* out : {"mx", "mn"})
      for (int64_t r = 0; r < rows; ++r) {
        float w = want->at(out).as<float>()[r], g = got->at(out).as<float>()[r];
        EXPECT_TRUE(std::isnan(w) ? std::isnan(g) : g == w) << out << "[" << r << "] with D=" << d << ": " << g << ", want " << w;
      }
  }
}

// A max or min over a window the nest unrolls (maxpool's 2x2) is one vector llvm.maximum
// per step. It says that the sign of a zero does not matter (nsz), as the interpreter's
// `v > m` ignores it, so x86 spends no blend and mask on ordering -0 below +0 (three of
// the seven instructions a step took). A NaN in any lane still wins.
TEST(VectorMax, WindowsIgnoreTheSignOfZeroAndKeepNaNs) {
  const std::string text =
      "def f(float(N,W) I) -> (O, P) {\n  O(n, w) max=! I(n, 2*w + k) where k in 0:2\n"
      "  P(n, w) min=! I(n, 2*w + k) where k in 0:2\n}\n";
  const int64_t rows = 6, width = 96;
  auto b = build(text, {{"N", rows}, {"W", width}});
  ASSERT_TRUE(b->result);
  auto llvm = compile_kernel(KernelSetup{b->checked, b->def, {}, b->shapes}, *mapping_preset("default", *b->def, &b->shapes),
                             CodegenChoice{"cpu", {"llvm"}, false});
  ASSERT_TRUE(llvm) << llvm.error();
  const std::string& ir = llvm->text("llvm").text;
  static const std::regex call(R"(call ([a-z ]*)<\d+ x float> @llvm\.(maximum|minimum)\.)");
  int vector_calls = 0;
  for (std::sregex_iterator m(ir.begin(), ir.end(), call), e; m != e; ++m, ++vector_calls)
    EXPECT_NE((*m)[1].str().find("nsz"), std::string::npos) << (*m).str();
  EXPECT_GE(vector_calls, 2) << ir;

  Tensor x = *Tensor::zeros(ScalarType::Float32, {rows, width});
  float* p = x.as<float>();
  for (int64_t i = 0; i < rows * width; ++i) p[i] = float((i * 29) % 97) / 5.0f - 9.0f;
  p[3] = NAN;                                    // row 0: a NaN in the first window's pair
  p[width + 40] = NAN, p[width + 41] = NAN;      // row 1: both of a window
  p[2 * width + 95] = INFINITY;                  // row 2: +inf in the last lane
  p[3 * width + 10] = -0.0f, p[3 * width + 11] = 0.0f;  // row 3: zeros of both signs
  for (int64_t j = 0; j < width; ++j) p[4 * width + j] = -INFINITY;  // row 4: all -inf
  expect_matches_interpreter(*b, {{"I", x}}, "windows with NaNs");
}

// The longest chain of dependent vector adds and FMAs in the basic block of `assembly`
// (AT&T syntax, destination last) that holds the most FMAs, and how many FMAs it holds.
// Any other instruction writing a register starts a new value there.
std::pair<int, int> longest_vector_chain(const std::string& assembly) {
  static const std::regex instruction(R"(^\s+([a-z][a-z0-9]*)\s+(.*)$)");
  static const std::regex reg(R"(%([xyz]mm\d+))");
  std::pair<int, int> best{0, 0};
  std::map<std::string, int> depth;  // chain length ending in each register
  int fmas = 0, longest = 0;
  std::istringstream in(assembly + "\n.end:\n");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!line.empty() && line[0] != ' ' && line[0] != '\t' && line.back() == ':') {  // a label: a new block
      if (fmas > best.second) best = {longest, fmas};
      depth.clear();
      fmas = longest = 0;
      continue;
    }
    if (!std::regex_match(line, m, instruction)) continue;
    std::string name = m[1], operands = m[2];
    std::vector<std::string> regs;
    for (std::sregex_iterator r(operands.begin(), operands.end(), reg), e; r != e; ++r) regs.push_back((*r)[1]);
    if (regs.empty() || operands.rfind("%" + regs.back()) + regs.back().size() + 1 != operands.size()) continue;
    bool fma = name.rfind("vfmadd", 0) == 0, add = name == "vaddps" || name == "vaddss";
    int d = 0;  // an FMA reads its destination too
    if (fma || add)
      for (size_t i = 0; i + (fma ? 0 : 1) < regs.size(); ++i) d = std::max(d, depth[regs[i]]);
    depth[regs.back()] = fma || add ? d + 1 : 0;
    longest = std::max(longest, depth[regs.back()]);
    fmas += fma;
  }
  return best;
}

// A sum of products along a row (a matvec's dot products, a layernorm's variance) runs on
// several accumulators: the backend must not fold them back into one chain of FMAs, each
// waiting for the last (codegen/CpuKernel.cpp's optimise).
TEST(VectorReduction, SumsOfProductsKeepSeveralAccumulators) {
  for (const char* kernel : {"matvec.tc", "layernorm.tc"}) {
    SCOPED_TRACE(kernel);
    std::shared_ptr<const CheckedFile> checked = check_source(kernel, example(kernel));
    ASSERT_FALSE(checked->has_errors());
    const SemaDef& def = checked->defs.at(0);
    SizeMap sizes;
    for (const std::string& p : def.size_params) sizes[p] = 512;
    auto shapes = shapes_evaluate(def, sizes);
    ASSERT_TRUE(shapes);
    auto options = mapping_options_from_json(R"({"outerScheduleFusionStrategy": "Preserve3Coincident"})");
    ASSERT_TRUE(options);
    auto r = compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *options, CodegenChoice{"cpu", {"asm"}, false});
    ASSERT_TRUE(r) << r.error();
    auto [chain, fmas] = longest_vector_chain(r->text("asm").text);
    ASSERT_GE(fmas, 8) << r->text("asm").text;
    EXPECT_LE(chain, fmas / 2 + 4) << fmas << " FMAs\n" << r->text("asm").text;
  }
}
}  // namespace
}  // namespace tcs
