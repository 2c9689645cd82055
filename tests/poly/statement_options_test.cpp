// Per-statement options (`statements`): JSON in and out, a message naming the statement
// for every mistake, each statement's loops shaped by its own fields and still computing
// what the interpreter computes, and the default preset tiling KRU3's contractions apart.
#include <gtest/gtest.h>

#include "Compiler.h"
#include "codegen/CpuKernel.h"
#include "lang/Frontend.h"
#include "options/OptionsSchema.h"
#include "runtime/Compare.h"
#include "runtime/RandomInputs.h"

namespace tcs {
namespace {

std::string error_of(const std::string& json) {
  auto o = mapping_options_from_json(json);
  return o ? std::string("(accepted)") : o.error();
}

TEST(StatementOptions, RoundTripThroughJson) {
  auto o = mapping_options_from_json(R"({"tile": [4, 8, 16], "statements": {
      "S2": {"tile": [2, 2], "registerTile": [1, 2], "cpu": {"pack": [{"tensor": "W", "depth": 1, "order": [1, 0]}]}},
      "S0": {"unroll": 4}}})");
  ASSERT_TRUE(o) << o.error();
  ASSERT_EQ(o->statements.size(), 2u);
  EXPECT_EQ(o->statements[0].statement, "S2");
  EXPECT_EQ(o->statements[0].fields.at("tile"), "[2, 2]");
  EXPECT_EQ(o->statements[0].fields.at("cpu.pack"), R"([{"tensor": "W", "depth": 1, "order": [1, 0]}])");
  std::string text = mapping_options_to_json(*o);
  EXPECT_NE(text.find(R"("S0": {"unroll": 4})"), std::string::npos) << text;
  auto back = mapping_options_from_json(text);
  ASSERT_TRUE(back) << back.error() << "\n" << text;
  EXPECT_EQ(*back, *o);

  auto s2 = mapping_options_for_statement(*o, "S2");
  ASSERT_TRUE(s2) << s2.error();
  EXPECT_EQ(s2->tile, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(s2->cpu.pack.at(0).order, (std::vector<int>{1, 0}));
  EXPECT_TRUE(s2->statements.empty());
  auto plain = mapping_options_from_json(R"({"tile": [4, 8, 16], "statements": {"S0": {"unroll": 4}}})");
  ASSERT_TRUE(plain);
  std::vector<std::string> diff = option_differences(*plain, *o);
  ASSERT_EQ(diff.size(), 3u) << ::testing::PrintToString(diff);
  EXPECT_EQ(diff[0], "statements.S2.tile: [4, 8, 16] \u2192 [2, 2]");
  auto s1 = mapping_options_for_statement(*o, "S1");
  ASSERT_TRUE(s1);
  EXPECT_EQ(s1->tile, o->tile);  // no options of its own: the kernel's
}

TEST(StatementOptions, MistakesNameTheStatement) {
  EXPECT_EQ(error_of(R"({"statements": {"S1": {"outerScheduleFusionStrategy": "Max"}}})"),
            "options: line 1, column 55: statements.S1.outerScheduleFusionStrategy is the whole kernel's option; it "
            "cannot be set per statement");
  EXPECT_NE(error_of(R"({"statements": {"S1": {"tiles": [2]}}})").find("unknown option 'statements.S1.tiles' (did you mean 'tile'?)"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"statements": {"S1": {"tile": [0]}}})").find("statements.S1.tile[0] must be a positive integer"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"tile": [8], "statements": {"S1": {"registerTile": [16]}}})")
                .find("statements.S1: registerTile[0] (16) is larger than tile[0] (8)"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"statements": {"L1": {"tile": [2]}}})").find("statements: 'L1' is not a statement; name one as S0, S1"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"statements": {"S1": {}, "S1": {}}})").find("duplicate key \"S1\""), std::string::npos);
  EXPECT_NE(error_of(R"({"statements": [1]})").find("statements must be an object"), std::string::npos);
  EXPECT_NE(error_of(R"({"statements": {"S1": {"statements": {}}}})").find("unknown option 'statements.S1.statements'"),
            std::string::npos);
}

const char* kKru3 =
    "def kru3(float(D0,N0) W0, float(D1,N1) W1, float(D2,N2) W2, float(M,N0,N1,N2) X) -> (Y) {\n"
    "  XW2(m, n0, n1, d2) +=! X(m, n0, n1, n2) * W2(d2, n2)\n"
    "  XW1(m, n0, d1, d2) +=! XW2(m, n0, n1, d2) * W1(d1, n1)\n"
    "  Y(m, d0, d1, d2)   +=! XW1(m, n0, d1, d2) * W0(d0, n0)\n}\n";

struct Kernel {
  std::shared_ptr<CheckedFile> checked;
  const SemaDef* def = nullptr;
  DefShapes shapes;
};

Kernel kru3() {
  Kernel k;
  k.checked = check_source("k.tc", kKru3);
  EXPECT_FALSE(k.checked->has_errors());
  k.def = &k.checked->defs.at(0);
  auto shapes = shapes_evaluate(*k.def, {{"M", 3}, {"N0", 6}, {"N1", 5}, {"N2", 7}, {"D0", 4}, {"D1", 9}, {"D2", 18}});
  EXPECT_TRUE(shapes) << shapes.error();
  k.shapes = *shapes;
  return k;
}

Expected<CompileResult> build(const Kernel& k, const std::string& json) {
  auto o = mapping_options_from_json(json);
  if (!o) return o.failure();
  return compile_kernel(KernelSetup{k.checked, k.def, {}, k.shapes}, *o, CodegenChoice{"cpu", {"c"}, true});
}

void expect_matches_interpreter(const Kernel& k, const CompileResult& r) {
  auto inputs = random_inputs(*k.def, k.shapes, 5, {});
  ASSERT_TRUE(inputs);
  auto want = interpret(*k.def, k.shapes, *inputs);
  ASSERT_TRUE(want);
  auto got = r.kernel->run(*inputs);
  ASSERT_TRUE(got) << got.error();
  for (const auto& [name, w] : *want) EXPECT_TRUE(compare_tensors(name, got->at(name), w).ok) << name << "\n" << r.text("c").text;
}

TEST(StatementOptions, EachStatementIsTiledByItsOwn) {
  Kernel k = kru3();
  auto r = build(k, R"({"outerScheduleFusionStrategy": "Min", "tile": [1, 1, 2, 8, 4],
      "statements": {"S2": {"tile": [1, 3, 5, 16, 2], "registerTile": [1, 1, 1, 8], "cpu": {"pointLoopOrder": [0, 2, 4, 1, 3],
                     "pack": [{"tensor": "W0", "depth": 0, "order": [1, 0]}]}}}})");
  ASSERT_TRUE(r) << r.error();
  const std::string& c = r->text("c").text;
  EXPECT_NE(c.find("(4 * c"), std::string::npos) << c;               // S0's and S1's tile of 4 along their sums
  EXPECT_NE(c.find("tcs_min(8, ((5 * c"), std::string::npos) << c;  // S2's tile of 5 along d1
  EXPECT_NE(c.find("pack a 4 x 6 tile of W0"), std::string::npos) << c;
  EXPECT_EQ(c.find("tile of W2"), std::string::npos) << c;
  expect_matches_interpreter(k, *r);
}

TEST(StatementOptions, KernelDependentMistakesNameTheStatement) {
  Kernel k = kru3();
  auto error = [&](const std::string& json) {
    auto r = build(k, json);
    return r ? std::string("(accepted)") : r.error();
  };
  EXPECT_EQ(error(R"({"statements": {"S3": {"unroll": 2}}})"),
            "options: statements: 'kru3' has no statement S3; its statements are S0 to S2");
  EXPECT_EQ(error(R"({"tile": [1], "statements": {"S1": {"cpu": {"pack": [{"tensor": "Q", "depth": 0}]}}}})"),
            "options: statements.S1.cpu.pack[0].tensor: 'kru3' has no tensor named 'Q'");
  EXPECT_EQ(error(R"({"tile": [1], "statements": {"S1": {"cpu": {"pack": [{"tensor": "W2", "depth": 0}]}}}})"),
            "options: statements.S1.cpu.pack[0].tensor: no statement of 'kru3' that takes these options reads 'W2'");
  EXPECT_NE(error(R"({"tile": [1, 1], "statements": {"S1": {"cpu": {"pack": [{"tensor": "W1", "depth": 6}]}}}})")
                .find("statements.S1.cpu.pack[0].depth is 6, but the loops over S1_init, S1 are not tiled"),
            std::string::npos)
      << error(R"({"tile": [1, 1], "statements": {"S1": {"cpu": {"pack": [{"tensor": "W1", "depth": 6}]}}}})");
}

TEST(StatementOptions, TheDefaultPresetTilesEachContractionForItsShape) {
  Kernel k = kru3();
  auto o = mapping_preset("default", *k.def, &k.shapes);
  ASSERT_TRUE(o) << o.error();
  ASSERT_FALSE(o->statements.empty()) << mapping_options_to_json(*o);
  EXPECT_EQ(o->statements.back().statement, "S2");
  ASSERT_FALSE(o->cpu.pack.empty());
  EXPECT_EQ(o->cpu.pack[0].tensor, "W2");  // read along d2 with stride N2: transposed once, outside the loops
  EXPECT_EQ(o->cpu.pack[0].depth, 0);
  EXPECT_EQ(o->cpu.pack[0].order, (std::vector<int>{1, 0}));
  auto r = compile_kernel(KernelSetup{k.checked, k.def, {}, k.shapes}, *o, CodegenChoice{"cpu", {"c"}, true});
  ASSERT_TRUE(r) << r.error();
  expect_matches_interpreter(k, *r);
}

}  // namespace
}  // namespace tcs
