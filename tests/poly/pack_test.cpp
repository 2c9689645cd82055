// Packing (cpu.pack): every input of matmul, conv2d and the batched matmul, at every depth
// of the tiled band, computes what the interpreter computes; the requests that cannot
// work are refused with a message naming the field, never a crash.
#include <gtest/gtest.h>

#include <fstream>
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

// Every input at every depth: the packed kernel equals the interpreter.
void expect_every_pack_correct(const PackKernel& k, MappingOptions o) {
  auto inputs = random_inputs(*k.def, k.shapes, 7, {});
  ASSERT_TRUE(inputs);
  auto want = interpret(*k.def, k.shapes, *inputs);
  ASSERT_TRUE(want);
  int built = 0;
  for (const SemaTensor& t : k.def->tensors) {
    if (t.role != TensorRole::Input) continue;
    for (int depth = 0; depth <= int(o.tile.size()); ++depth) {
      o.cpu.pack = {{t.name, depth}};
      auto r = build(k, o);
      ASSERT_TRUE(r) << t.name << " at depth " << depth << ": " << r.error();
      const std::string& c = r->text("c").text;
      EXPECT_NE(c.find(t.name + "_pack0["), std::string::npos) << c;
      ++built;
      r->kernel->set_threads(2);
      auto got = r->kernel->run(*inputs);
      ASSERT_TRUE(got) << got.error();
      for (const auto& [name, w] : *want) {
        TensorComparison cmp = compare_tensors(name, got->at(name), w);
        EXPECT_TRUE(cmp.ok) << t.name << " at depth " << depth << ": " << cmp.problem << "\n" << c;
      }
    }
  }
  EXPECT_GT(built, 0);
}

const char* kMatmul = "def mm(float(M,K) A, float(K,N) B) -> (C) { C(m,n) +=! A(m,k) * B(k,n) }\n";

TEST(Pack, MatmulEveryInputEveryDepth) {
  PackKernel k = load(kMatmul, {{"M", 37}, {"K", 45}, {"N", 70}});
  MappingOptions o;
  o.outer_fusion = FusionStrategy::Min;
  o.tile = {16, 32, 8};
  o.register_tile = {4, 16};
  o.cpu.point_loop_order = {2, 0, 1};
  o.cpu.register_accumulate = true;
  expect_every_pack_correct(k, o);
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
}

TEST(Pack, TheDefaultPresetPacksTheSharedOperandOfAMatrixProduct) {
  PackKernel k = load(kMatmul, {{"M", 64}, {"K", 64}, {"N", 64}});
  auto o = mapping_preset("default", *k.def);
  ASSERT_TRUE(o);
  ASSERT_EQ(o->cpu.pack.size(), 1u);
  EXPECT_EQ(o->cpu.pack[0].tensor, "B");
  EXPECT_EQ(o->cpu.pack[0].depth, 3);
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
  o.tile = {};
  refused({"A", 0}, "cpu.pack needs tile");
}

}  // namespace
}  // namespace tcs
