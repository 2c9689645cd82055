// Golden schedules: matmul, conv2d and the 3-layer MLP at their header sizes, under each
// outer fusion strategy, after the scheduling pass. Compared with isl equality of the
// schedule maps, so a change in isl's textual output does not fail the test but any
// change of execution order does. Set TCS_UPDATE_GOLDEN=1 to rewrite the files (and
// review the diff before committing it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <set>
#include <fstream>
#include <sstream>

#include "Compiler.h"
#include "lang/Frontend.h"
#include "targets/cpu/CpuTarget.h"

namespace tcs {
namespace {

struct Case {
  std::string kernel;
  FusionStrategy fusion;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.kernel + "_" + std::string(fusion_strategy_name(info.param.fusion));
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The schedule after the "schedule" pass for `kernel` under `fusion`, nothing else set.
std::string scheduled(const std::string& kernel, FusionStrategy fusion) {
  std::string text = read(std::string(TCS_EXAMPLES_DIR) + "/" + kernel + ".tc");
  auto checked = check_source(kernel + ".tc", text);
  EXPECT_FALSE(checked->has_errors());
  const SemaDef& def = checked->defs.at(0);
  auto shapes = shapes_evaluate(def, sizes_from_header(text));
  EXPECT_TRUE(shapes) << shapes.error();
  MappingOptions o;
  o.outer_fusion = fusion;
  auto lowered = lower_to_loop_nest(def, *shapes, o, cpu_target().mapping_passes);
  EXPECT_TRUE(lowered) << lowered.error();
  for (const PassSnapshot& p : lowered->passes)
    if (p.pass == "schedule") return p.isl_schedule;
  ADD_FAILURE() << "no snapshot of the schedule pass";
  return "";
}

class GoldenSchedule : public ::testing::TestWithParam<Case> {};

TEST_P(GoldenSchedule, EqualsTheGoldenScheduleInIsl) {
  const Case& c = GetParam();
  std::string got = scheduled(c.kernel, c.fusion);
  std::string path = std::string(TCS_TEST_DATA_DIR) + "/schedules/" + c.kernel + "." +
                     std::string(fusion_strategy_name(c.fusion)) + ".isl";
  if (std::getenv("TCS_UPDATE_GOLDEN")) {
    std::ofstream(path) << got << "\n";
    GTEST_SKIP() << "rewrote " << path;
  }
  std::string want = read(path);
  ASSERT_FALSE(want.empty()) << "missing golden file " << path << " (TCS_UPDATE_GOLDEN=1 writes it)";
  auto eq = schedules_equivalent(got, want);
  ASSERT_TRUE(eq) << eq.error();
  EXPECT_TRUE(*eq) << "the schedule changed.\nwant:\n" << want << "\ngot:\n" << got;
}

INSTANTIATE_TEST_SUITE_P(Kernels, GoldenSchedule,
                         ::testing::Values(Case{"matmul", FusionStrategy::Max},
                                           Case{"matmul", FusionStrategy::Preserve3Coincident},
                                           Case{"matmul", FusionStrategy::Min},
                                           Case{"conv2d", FusionStrategy::Max},
                                           Case{"conv2d", FusionStrategy::Preserve3Coincident},
                                           Case{"conv2d", FusionStrategy::Min},
                                           Case{"mlp3", FusionStrategy::Max},
                                           Case{"mlp3", FusionStrategy::Preserve3Coincident},
                                           Case{"mlp3", FusionStrategy::Min}),
                         case_name);

// The strategies are not all the same schedule: on the MLP, Max fuses a layer's
// initialisation, reduction and bias into one nest, Min keeps them apart.
TEST(GoldenSchedule, FusionStrategiesDifferOnTheMlp) {
  auto eq = schedules_equivalent(scheduled("mlp3", FusionStrategy::Max), scheduled("mlp3", FusionStrategy::Min));
  ASSERT_TRUE(eq) << eq.error();
  EXPECT_FALSE(*eq);
}

// intraTileScheduleFusionStrategy: inside each tile of a band over two statements, Min
// runs them one after the other (each in loops of its own), Max interleaves them.
TEST(GoldenSchedule, IntraTileFusionDistributesStatementsInsideTiles) {
  auto checked = check_source("k.tc", "def two(float(N,M) A) -> (B, C) {\n  B(i, j) = A(i, j) * 2\n  C(i, j) = B(i, j) + A(i, j)\n}\n");
  const SemaDef& def = checked->defs.at(0);
  auto shapes = shapes_evaluate(def, {{"N", 10}, {"M", 20}});
  ASSERT_TRUE(shapes);
  auto innermost_loops = [&](FusionStrategy intra) {
    MappingOptions o;
    o.outer_fusion = FusionStrategy::Max;
    o.intra_tile_fusion = intra;
    o.tile = {4, 8};
    o.tile_imperfectly_nested = true;
    auto r = lower_to_loop_nest(def, *shapes, o, cpu_target().mapping_passes);
    EXPECT_TRUE(r) << r.error();
    std::set<int> loops;  // ids of the loops directly around a statement
    std::function<void(const LoopNode&, int)> walk = [&](const LoopNode& n, int around) {
      if (n.kind == LoopNode::Kind::Call) loops.insert(around);
      for (const LoopNode& c : n.children) walk(c, n.kind == LoopNode::Kind::For ? n.loop_id : around);
    };
    walk(r->nest.root, -1);
    return loops.size();
  };
  EXPECT_EQ(innermost_loops(FusionStrategy::Min), 2u);
  EXPECT_EQ(innermost_loops(FusionStrategy::Max), 1u);
}

TEST(GoldenSchedule, EquivalenceRejectsText) {
  auto eq = schedules_equivalent("not a schedule {", "domain: \"{ S[i] : 0 <= i < 4 }\"");
  EXPECT_FALSE(eq);
}

TEST(GoldenSchedule, EquivalenceSeesThroughTreeShape) {
  // One band over both statements, or a sequence of two: the same order only if the
  // statements do not interleave; here they do in the first and not in the second.
  std::string fused = "domain: \"{ A[i] : 0 <= i < 4; B[i] : 0 <= i < 4 }\"\nchild:\n  schedule: \"[{ A[i] -> [(i)]; B[i] -> [(i)] }]\"";
  std::string split = "domain: \"{ A[i] : 0 <= i < 4; B[i] : 0 <= i < 4 }\"\nchild:\n  sequence:\n  - filter: \"{ A[i] }\"\n  - filter: \"{ B[i] }\"";
  auto same = schedules_equivalent(fused, fused);
  ASSERT_TRUE(same);
  EXPECT_TRUE(*same);
  auto different = schedules_equivalent(fused, split);
  ASSERT_TRUE(different);
  EXPECT_FALSE(*different);
}

}  // namespace
}  // namespace tcs
