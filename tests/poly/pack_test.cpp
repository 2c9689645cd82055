// Packing (cpu.pack): every input of matmul, conv2d and the batched matmul, at every depth
// of the tiled band and in every buffer order tried (transposed copies walk blocks with
// ragged edges), computes what the interpreter computes; the requests that cannot work
// are refused with a message naming the field, never a crash.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "Compiler.h"
#include "codegen/CpuKernel.h"
#include "lang/Frontend.h"
#include "runtime/Compare.h"
#include "runtime/RandomInputs.h"
#include "runtime/ThreadPool.h"

namespace tcs {
namespace {

struct PackKernel {
  std::shared_ptr<CheckedFile> checked;
  const SemaDef* def = nullptr;
  DefShapes shapes;
};

PackKernel load(const std::string& text, const SizeMap& sizes) {
  PackKernel k;
  k.checked = check_source("k.tc", text);
  EXPECT_FALSE(k.checked->has_errors());
  k.def = &k.checked->defs.at(0);
  auto shapes = shapes_evaluate(*k.def, sizes);
  EXPECT_TRUE(shapes) << shapes.error();
  k.shapes = *shapes;
  return k;
}

Expected<CompileResult> build(const PackKernel& k, const MappingOptions& o) {
  return compile_kernel(KernelSetup{k.checked, k.def, {}, k.shapes}, o, CodegenChoice{"cpu", {"c"}, true});
}

// The kernel built with `o` computes what the interpreter computes, on two threads.
void expect_matches_interpreter(const PackKernel& k, const MappingOptions& o, const std::string& what) {
  auto inputs = random_inputs(*k.def, k.shapes, 7, {});
  ASSERT_TRUE(inputs);
  auto want = interpret(*k.def, k.shapes, *inputs);
  ASSERT_TRUE(want);
  auto r = build(k, o);
  ASSERT_TRUE(r) << what << ": " << r.error();
  r->kernel->set_threads(2);
  auto got = r->kernel->run(*inputs);
  ASSERT_TRUE(got) << got.error();
  for (const auto& [name, w] : *want) {
    TensorComparison cmp = compare_tensors(name, got->at(name), w);
    EXPECT_TRUE(cmp.ok) << what << ": " << cmp.problem << "\n" << r->text("c").text;
  }
}

// Every input at every depth, its buffer in `order` (given per rank; empty: the tensor's
// order): the packed kernel equals the interpreter.
void expect_every_pack_correct(const PackKernel& k, MappingOptions o, const std::map<size_t, std::vector<int>>& order = {}) {
  int built = 0;
  for (const SemaTensor& t : k.def->tensors) {
    if (t.role != TensorRole::Input) continue;
    for (int depth = 0; depth <= int(o.tile.size()); ++depth) {
      auto ordered = order.find(size_t(t.rank()));
      o.cpu.pack = {{t.name, depth, ordered == order.end() ? std::vector<int>{} : ordered->second}};
      auto r = build(k, o);
      ASSERT_TRUE(r) << t.name << " at depth " << depth << ": " << r.error();
      EXPECT_NE(r->text("c").text.find(t.name + "_pack0["), std::string::npos) << r->text("c").text;
      expect_matches_interpreter(k, o, t.name + " at depth " + std::to_string(depth));
      ++built;
    }
  }
  EXPECT_GT(built, 0);
}

const char* kMatmul = "def mm(float(M,K) A, float(K,N) B) -> (C) { C(m,n) +=! A(m,k) * B(k,n) }\n";

// Cache tiles `tile` around 4 x 16 register tiles that keep their sums in registers, the
// summed loop outside them: a matrix product's micro-kernel.
MappingOptions register_tiled(std::vector<int64_t> tile) {
  MappingOptions o;
  o.outer_fusion = FusionStrategy::Min;
  o.tile = std::move(tile);
  o.register_tile = {4, 16};
  o.cpu.point_loop_order = {2, 0, 1};
  o.cpu.register_accumulate = true;
  return o;
}

TEST(Pack, MatmulEveryInputEveryDepth) {
  PackKernel k = load(kMatmul, {{"M", 37}, {"K", 45}, {"N", 70}});
  MappingOptions o = register_tiled({16, 32, 8});
  expect_every_pack_correct(k, o);
}

// Buffers stored the other way round: a transposed copy, blocked by cache lines, at sizes
// that leave partial blocks on every side.
TEST(Pack, TransposedBuffersEveryInputEveryDepth) {
  PackKernel k = load("def tmm(float(M,K) A, float(N,K) B) -> (C) { C(m,n) +=! A(m,k) * B(n,k) }\n",
                      {{"M", 37}, {"K", 45}, {"N", 70}});
  MappingOptions o = register_tiled({16, 48, 40});
  expect_every_pack_correct(k, o, {{2, {1, 0}}});
}

TEST(Pack, ConvolutionInPermutedBufferOrders) {
  PackKernel k = load(
      "def conv(float(N,C,H,W) I, float(F,C,KH,KW) Wt) -> (O) {\n"
      "  O(n, f, h, w) +=! I(n, c, h + kh, w + kw) * Wt(f, c, kh, kw)\n}\n",
      {{"N", 2}, {"C", 3}, {"H", 11}, {"W", 19}, {"F", 4}, {"KH", 3}, {"KW", 3}});
  MappingOptions o;
  o.outer_fusion = FusionStrategy::Min;
  o.tile = {1, 2, 4, 8};
  expect_every_pack_correct(k, o, {{4, {3, 0, 2, 1}}});
}

// Blocked by cache lines; a buffer row of an even number of lines (32 floats: two) gets one
// line more, so a block's stores a row apart land in different L1 sets; an odd one does not.
// The blocks along the tensor's rows run inside those along the buffer's, as the compiled
// copy walks them (LlvmPack.cpp): the C shows the order that runs.
TEST(Pack, TheTransposedCopyIsBlockedAndPaddedInTheCText) {
  PackKernel k = load("def tmm(float(M,K) A, float(N,K) B) -> (C) { C(m,n) +=! A(m,k) * B(n,k) }\n",
                      {{"M", 64}, {"K", 64}, {"N", 64}});
  MappingOptions o;
  o.outer_fusion = FusionStrategy::Min;
  o.tile = {32, 32, 32};
  o.cpu.pack = {{"B", 3, {1, 0}}};
  auto r = build(k, o);
  ASSERT_TRUE(r) << r.error();
  const std::string& c = r->text("c").text;
  EXPECT_NE(c.find("q1 += 16)"), std::string::npos) << c;
  EXPECT_NE(c.find("q0 += 16)"), std::string::npos) << c;
  EXPECT_LT(c.find("q0 += 16)"), c.find("q1 += 16)")) << c;
  EXPECT_NE(c.find("float B_pack0[1536]"), std::string::npos) << c;  // 32 rows of 48
  EXPECT_NE(c.find("B_pack0[p0 + p1 * 48]"), std::string::npos) << c;
  expect_matches_interpreter(k, o, "padded rows");

  o.tile = {32, 48, 32};  // rows of 48 floats: three lines
  r = build(k, o);
  ASSERT_TRUE(r) << r.error();
  EXPECT_NE(r->text("c").text.find("B_pack0[p0 + p1 * 48]"), std::string::npos) << r->text("c").text;
  o.cpu.pack = {{"B", 3, {}}};  // not transposed: never padded
  o.tile = {32, 32, 32};
  r = build(k, o);
  ASSERT_TRUE(r) << r.error();
  EXPECT_NE(r->text("c").text.find("float B_pack0[1024]"), std::string::npos) << r->text("c").text;
}

// A linear layer's W(out, in) packed transposed per tile, the tiles of the summed index in
// a sequential loop: the LLVM code fetches the next tile's lines while the register tiles
// of this one run, and the C text says so. The sizes leave a partial last tile (no next
// one to fetch inside the tensor) and give the parallel loop two threads' shares.
TEST(Pack, ATransposedCopyFetchesItsNextTileWhileTheRegisterTilesRun) {
  PackKernel k = load("def fc(float(B,I) X, float(O,I) W) -> (Y) { Y(b,o) +=! X(b,i) * W(o,i) }\n",
                      {{"B", 24}, {"I", 150}, {"O", 96}});
  MappingOptions o = register_tiled({24, 32, 64});
  o.cpu.pack = {{"W", 3, {1, 0}}};
  auto r = compile_kernel(KernelSetup{k.checked, k.def, {}, k.shapes}, o, CodegenChoice{"cpu", {"c", "llvm"}, true});
  ASSERT_TRUE(r) << r.error();
  const std::string& c = r->text("c").text;
  EXPECT_NE(c.find("is fetched into the cache a few lines per register tile below"), std::string::npos) << c;
  EXPECT_NE(r->text("llvm").text.find("@llvm.prefetch"), std::string::npos);
  expect_matches_interpreter(k, o, "fetching ahead");

  o.cpu.pack = {{"W", 3, {}}};  // a copy in the tensor's order streams: nothing fetched
  r = compile_kernel(KernelSetup{k.checked, k.def, {}, k.shapes}, o, CodegenChoice{"cpu", {"c", "llvm"}, true});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->text("llvm").text.find("@llvm.prefetch"), std::string::npos);
  EXPECT_EQ(r->text("c").text.find("is fetched into the cache"), std::string::npos);
}

TEST(Pack, ConvolutionWithShiftedReads) {
  PackKernel k = load(
      "def conv(float(N,C,H,W) I, float(F,C,KH,KW) Wt) -> (O) {\n"
      "  O(n, f, h, w) +=! I(n, c, h + kh, w + kw) * Wt(f, c, kh, kw)\n}\n",
      {{"N", 2}, {"C", 3}, {"H", 11}, {"W", 13}, {"F", 4}, {"KH", 3}, {"KW", 3}});
  MappingOptions o;
  o.outer_fusion = FusionStrategy::Min;
  o.tile = {1, 2, 4, 8};
  expect_every_pack_correct(k, o);
}

TEST(Pack, BatchedMatmulUnderTheDefaultPreset) {
  PackKernel k = load("def bmm(float(B,M,K) X, float(B,K,N) Y) -> (Z) { Z(b,m,n) +=! X(b,m,k) * Y(b,k,n) }\n",
                  {{"B", 3}, {"M", 26}, {"K", 20}, {"N", 26}});
  auto o = mapping_preset("default", *k.def);
  ASSERT_TRUE(o);
  expect_every_pack_correct(k, *o);
  expect_every_pack_correct(k, *o, {{3, {0, 2, 1}}});  // full blocks transposed below a batch loop
}

TEST(Pack, TheDefaultPresetPacksTheSharedOperandOfAMatrixProduct) {
  PackKernel k = load(kMatmul, {{"M", 64}, {"K", 64}, {"N", 64}});
  auto o = mapping_preset("default", *k.def);
  ASSERT_TRUE(o);
  ASSERT_EQ(o->cpu.pack.size(), 1u);
  EXPECT_EQ(o->cpu.pack[0].tensor, "B");
  EXPECT_EQ(o->cpu.pack[0].depth, 3);
}

// Products whose shared operand is stored with the vector index first (a linear layer's
// W(out, in)) pack it transposed; each layer of an MLP gets its own request.
TEST(Pack, TheDefaultPresetTransposesOperandsStoredTheOtherWay) {
  PackKernel tmm = load("def tmm(float(M,K) A, float(N,K) B) -> (C) { C(m,n) +=! A(m,k) * B(n,k) }\n",
                        {{"M", 64}, {"K", 64}, {"N", 64}});
  auto o = mapping_preset("default", *tmm.def);
  ASSERT_TRUE(o);
  ASSERT_EQ(o->cpu.pack.size(), 1u);
  EXPECT_EQ(o->cpu.pack[0].tensor, "B");
  EXPECT_EQ(o->cpu.pack[0].order, (std::vector<int>{1, 0}));

  PackKernel mlp = load(
      "def mlp2(float(B,I) X, float(H,I) W1, float(O,H) W2) -> (Y) {\n"
      "  L1(b, j) +=! X(b, i) * W1(j, i)\n  L1(b, j) = fmax(L1(b, j), 0)\n"
      "  Y(b, o) +=! L1(b, j) * W2(o, j)\n}\n",
      {{"B", 16}, {"I", 32}, {"H", 48}, {"O", 24}});
  o = mapping_preset("default", *mlp.def);
  ASSERT_TRUE(o);
  ASSERT_EQ(o->cpu.pack.size(), 2u);
  EXPECT_EQ(o->cpu.pack[0].tensor, "W1");
  EXPECT_EQ(o->cpu.pack[1].tensor, "W2");
  EXPECT_EQ(o->cpu.pack[1].order, (std::vector<int>{1, 0}));
  auto r = build(mlp, *o);
  ASSERT_TRUE(r) << r.error();
  EXPECT_NE(r->text("c").text.find("W2_pack1["), std::string::npos) << r->text("c").text;
  expect_matches_interpreter(mlp, *o, "the default preset");
}

// A small linear layer and a chain of two: the default splits each product's columns
// over the threads, and each thread packs its own half of W inside the parallel loop.
TEST(Pack, EachThreadPacksItsOwnColumnsOfASmallLinearLayer) {
  PackKernel linear = load("def fc(float(B,I) X, float(O,I) W) -> (Y) { Y(b, o) +=! X(b, i) * W(o, i) }\n",
                           {{"B", 32}, {"I", 128}, {"O", 96}});
  PackKernel mlp = load(
      "def mlp2(float(B,I) X, float(H,I) W1, float(O,H) W2) -> (Y) {\n"
      "  L1(b, j) +=! X(b, i) * W1(j, i)\n  L1(b, j) = fmax(L1(b, j), 0)\n"
      "  Y(b, o) +=! L1(b, j) * W2(o, j)\n}\n",
      {{"B", 16}, {"I", 128}, {"H", 128}, {"O", 64}});
  // Summed extents of 128 fit one cache tile with AVX2 too, so no loop comes between.
  for (const PackKernel* k : {&linear, &mlp}) {
    auto o = mapping_preset("default", *k->def, &k->shapes);
    ASSERT_TRUE(o) << o.error();
    auto r = build(*k, *o);
    ASSERT_TRUE(r) << r.error();
    const std::string& c = r->text("c").text;
    // Every pack opens the body of a parallel loop.
    size_t packs = 0;
    for (size_t at = c.find("// pack a"); at != std::string::npos; at = c.find("// pack a", at + 1), ++packs) {
      size_t line = c.rfind('\n', at), previous = c.rfind('\n', line - 1);
      EXPECT_EQ(c.substr(line - 8, 8), "parallel") << "a pack outside the parallel loop, after " << c.substr(previous, line - previous) << "\n" << c;
    }
    EXPECT_EQ(packs, k == &linear ? 1u : 2u) << c;
    expect_matches_interpreter(*k, *o, k->def->name);
  }
}

// A copy in another order (a transpose, a permutation of three dimensions) reads its
// input a row apart per lane: the default preset packs that input in the output's order,
// one cache line of its rows per tile, so the transposing copy works on whole lines.
TEST(Pack, TheDefaultPresetCopiesATransposeThroughATransposedPack) {
  struct Case {
    const char* text;
    SizeMap sizes;
    std::vector<int64_t> tile;
    std::vector<int> order;
  };
  const Case cases[] = {
      {"def t(float(M,N) I) -> (O) { O(j, i) = I(i, j) }\n", {{"M", 40}, {"N", 70}}, {16, 40}, {1, 0}},
      {"def t(double(M,N) X, double(N,M) Y) -> (Z) { Z(j, i) = X(i, j) + Y(j, i) }\n", {{"M", 600}, {"N", 20}}, {8, 512}, {1, 0}},
      {"def p(float(A,B,C) I) -> (O) { O(c, a, b) = I(a, b, c) }\n", {{"A", 9}, {"B", 33}, {"C", 21}}, {16, 1, 33}, {2, 0, 1}},
      {"def b(float(B,M,N) I) -> (O) { O(b, j, i) = I(b, i, j) }\n", {{"B", 1}, {"M", 17}, {"N", 50}}, {16, 17}, {0, 2, 1}},
  };
  for (const Case& c : cases) {
    PackKernel k = load(c.text, c.sizes);
    auto o = mapping_preset("default", *k.def, &k.shapes);
    ASSERT_TRUE(o) << o.error();
    EXPECT_EQ(o->tile, c.tile) << c.text;
    ASSERT_EQ(o->cpu.pack.size(), 1u) << c.text;
    EXPECT_EQ(o->cpu.pack[0].order, c.order) << c.text;
    EXPECT_EQ(o->cpu.pack[0].depth, int(c.tile.size())) << c.text;
    expect_matches_interpreter(k, *o, c.text);
  }
  // A copy in the same order packs nothing.
  PackKernel same = load("def s(float(M,N) I) -> (O) { O(i, j) = I(i, j) }\n", {{"M", 40}, {"N", 70}});
  auto o = mapping_preset("default", *same.def, &same.shapes);
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->cpu.pack.empty());
  EXPECT_TRUE(o->tile.empty());
}

TEST(Pack, ImpossibleRequestsAreRefusedWithTheField) {
  PackKernel k = load(kMatmul, {{"M", 1024}, {"K", 1024}, {"N", 1024}});
  MappingOptions o;
  o.tile = {32, 32, 32};
  o.outer_fusion = FusionStrategy::Min;
  auto refused = [&](PackRequest p, const std::string& message) {
    o.cpu.pack = {p};
    auto r = build(k, o);
    ASSERT_FALSE(r) << p.tensor << " " << p.depth;
    EXPECT_NE(r.error().find(message), std::string::npos) << r.error();
  };
  refused({"C", 3}, "cpu.pack[0]: 'C' is written inside the loops that would read the packed copy");
  refused({"A", 4}, "cpu.pack[0].depth is 4, but the tiled band over S0 has 3 tile loops");
  refused({"B", 0}, "cpu.pack[0]: the tile of 'B' read inside the packed loops is 1024 x 1024 (4096 KiB)");
  refused({"B", 3, {0, 1, 2}}, "cpu.pack[0].order has 3 entries, but 'B' has 2 dimensions");
  refused({"B", 3, {1, 1}}, "cpu.pack[0].order");
  o.tile = {};
  refused({"A", 0}, "cpu.pack needs tile");
}

// Fetching ahead (cpu.fetchAhead): a pooling's default marks the loop around its row loop,
// whose iterations then fetch the rows a few iterations on; a layernorm's does not, and
// with the option its parallel loop over rows fetches ahead. Both compute what the
// interpreter computes, and the C text tags the loop.
TEST(FetchAhead, APoolingFetchesItsRowsAheadUnderTheDefaultPreset) {
  PackKernel k = load("def pool(float(N,C,H,W) I) -> (O) {\n"
                      "  O(n, c, h, w) max=! I(n, c, 2*h + kh, 2*w + kw) where kh in 0:2, kw in 0:2\n}\n",
                      {{"N", 2}, {"C", 3}, {"H", 26}, {"W", 22}});
  auto o = mapping_preset("default", *k.def);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->cpu.fetch_ahead, 4);
  auto r = compile_kernel(KernelSetup{k.checked, k.def, {}, k.shapes}, *o, CodegenChoice{"cpu", {"c", "llvm"}, true});
  ASSERT_TRUE(r) << r.error();
  const std::string& c = r->text("c").text;
  // The loop over output rows (13 of them) holds the loop along a row (11 outputs), and
  // only the window's loops of two below that.
  size_t tag = c.find("fetch-ahead(4)");
  ASSERT_NE(tag, std::string::npos) << c;
  EXPECT_EQ(c.find("fetch-ahead", tag + 1), std::string::npos) << c;
  size_t line = c.rfind('\n', tag) + 1;
  EXPECT_NE(c.substr(line, tag - line).find("<= 12;"), std::string::npos) << c;
  // Every line is fetched into all cache levels (locality 3), none with the non-temporal
  // hint (locality 0), which made an Intel core's pooling 2.5x slower than no fetching.
  std::istringstream ir(r->text("llvm").text);
  int prefetches = 0;
  for (std::string line; std::getline(ir, line);)
    if (line.find("call void @llvm.prefetch") != std::string::npos) {
      ++prefetches;
      EXPECT_NE(line.find(", i32 0, i32 3, i32 1)"), std::string::npos) << line;
    }
  EXPECT_GT(prefetches, 0);
  expect_matches_interpreter(k, *o, "pooling fetching ahead");

  o->cpu.fetch_ahead = 0;
  r = compile_kernel(KernelSetup{k.checked, k.def, {}, k.shapes}, *o, CodegenChoice{"cpu", {"c", "llvm"}, true});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->text("llvm").text.find("@llvm.prefetch"), std::string::npos);
  EXPECT_EQ(r->text("c").text.find("fetch-ahead"), std::string::npos);
}

TEST(FetchAhead, ARowKernelFetchesOnlyWhenAsked) {
  PackKernel k = load("def ln(float(N,D) X) -> (Y) {\n"
                      "  mean(n) +=! X(n, d)\n"
                      "  Y(n, d) = X(n, d) - mean(n) / D\n}\n",
                      {{"N", 9}, {"D", 40}});
  auto o = mapping_preset("default", *k.def);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->cpu.fetch_ahead, 0);
  o->cpu.fetch_ahead = 2;
  auto r = compile_kernel(KernelSetup{k.checked, k.def, {}, k.shapes}, *o, CodegenChoice{"cpu", {"c", "llvm"}, true});
  ASSERT_TRUE(r) << r.error();
  EXPECT_NE(r->text("c").text.find("parallel fetch-ahead(2)"), std::string::npos) << r->text("c").text;
  EXPECT_NE(r->text("llvm").text.find("@llvm.prefetch"), std::string::npos);
  expect_matches_interpreter(k, *o, "rows fetching ahead");
}

}  // namespace
}  // namespace tcs
