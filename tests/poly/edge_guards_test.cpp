// Work a loop runs only on its first or last iteration moves out of the loop
// (loopnest/EdgeGuards.cpp), and only when nothing else on that iteration touches what it
// touches: on hand-built nests, then on the layernorm whose Max fusion left its
// variance's initialisation inside the row loop.
#include <gtest/gtest.h>

#include "Compiler.h"
#include "common/ExampleText.h"
#include "common/HandBuiltNests.h"
#include "lang/Frontend.h"
#include "loopnest/EdgeGuards.h"
#include "runtime/Compare.h"
#include "runtime/RandomInputs.h"

namespace tcs {
namespace {

using Op = LExpr::Op;
using Kind = LoopNode::Kind;

using testing_support::call;
using Kernel = testing_support::TwoStatements;

LoopNode pinned(int64_t at, int stmt) {  // if (c0 == at) S<stmt>(at)
  LoopNode n;
  n.kind = Kind::If;
  n.cond = LExpr::make(Op::Eq, {LExpr::iter(0), LExpr::integer(at)});
  n.children = {call(stmt, LExpr::integer(at))};
  return n;
}
// for (c0 = 0; c0 <= upper; c0++) body
LoopNest nest_of(std::vector<LoopNode> body, LExpr upper = LExpr::integer(7)) {
  LoopNest nest;
  nest.stmts = {{"S0", 0, false, {}}, {"S1", 1, false, {}}};
  nest.iter_names = {"c0"};
  LoopNode f;
  f.kind = Kind::For;
  f.iter = 0;
  f.init = LExpr::integer(0);
  f.upper = std::move(upper);
  f.loop_id = 0;
  f.children = std::move(body);
  nest.root.kind = Kind::Block;
  nest.root.children = {std::move(f)};
  return nest;
}

std::string text(const LoopNest& n) { return loop_nest_to_string(n); }

TEST(EdgeGuards, FirstIterationWorkMovesInFrontWhenNothingBeforeItTouchesItsTensors) {
  Kernel k;
  // S1 at c0 == 0 comes before S0 in the body: nothing runs before it on that iteration.
  LoopNest nest = nest_of({pinned(0, 1), call(0, LExpr::iter(0))});
  hoist_edge_guards(k.def, k.shapes, nest);
  ASSERT_EQ(nest.root.children.size(), 2u) << text(nest);
  EXPECT_EQ(nest.root.children[0].kind, Kind::Call) << text(nest);
  EXPECT_EQ(nest.root.children[1].kind, Kind::For);
  EXPECT_EQ(nest.root.children[1].children.size(), 1u) << text(nest);
  EXPECT_EQ(text(nest).find("if"), std::string::npos) << text(nest);
}

TEST(EdgeGuards, WorkThatReadsWhatTheIterationWroteStaysInside) {
  Kernel k;
  // S0 writes A(0) on the first iteration before S1 reads it there.
  LoopNest nest = nest_of({call(0, LExpr::iter(0)), pinned(0, 1)});
  const std::string before = text(nest);
  hoist_edge_guards(k.def, k.shapes, nest);
  EXPECT_EQ(text(nest), before);
}

TEST(EdgeGuards, LastIterationWorkMovesBehindAndWorkPinnedElsewhereStays) {
  Kernel k;
  // S1 pinned to the last iteration, after S0: it may follow the whole loop. Pinned to
  // iteration 3, it is neither edge and stays.
  LoopNest nest = nest_of({pinned(3, 1), call(0, LExpr::iter(0)), pinned(7, 1)});
  hoist_edge_guards(k.def, k.shapes, nest);
  ASSERT_EQ(nest.root.children.size(), 2u) << text(nest);
  EXPECT_EQ(nest.root.children[0].kind, Kind::For);
  EXPECT_EQ(nest.root.children[0].children.size(), 2u) << text(nest);
  EXPECT_EQ(nest.root.children[1].kind, Kind::Call) << text(nest);
}

TEST(EdgeGuards, AnUnknownTripCountKeepsTheMovedWorkUnderTheLoopsCondition) {
  Kernel k;
  // for (c0 = 0; c0 <= N - 1; ...) with N symbolic: the loop may not run at all.
  LExpr upper = LExpr::make(Op::Sub, {LExpr{Op::Param, 0, {}}, LExpr::integer(1)});
  LoopNest nest = nest_of({pinned(0, 1), call(0, LExpr::iter(0))}, upper);
  nest.params = {"N"};
  hoist_edge_guards(k.def, k.shapes, nest);
  ASSERT_EQ(nest.root.children.size(), 2u) << text(nest);
  const LoopNode& guard = nest.root.children[0];
  ASSERT_EQ(guard.kind, Kind::If) << text(nest);
  EXPECT_EQ(guard.cond.op, Op::Le) << text(nest);
}

using testing_support::example;

// Max fusion puts layernorm's centring and its variance's sum in one row loop; the
// variance's initialisation goes in front of it, and the kernel still computes what the
// interpreter computes.
TEST(EdgeGuards, LayernormInitialisesItsVarianceOutsideTheRowLoop) {
  std::shared_ptr<const CheckedFile> checked = check_source("layernorm.tc", example("layernorm.tc"));
  ASSERT_FALSE(checked->has_errors());
  const SemaDef& def = checked->defs.at(0);
  auto shapes = shapes_evaluate(def, {{"N", 13}, {"D", 203}});
  ASSERT_TRUE(shapes);
  auto options = mapping_options_from_json(R"({"outerScheduleFusionStrategy": "Max"})");
  ASSERT_TRUE(options);
  auto r = compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *options, CodegenChoice{"cpu", {"c"}, true});
  ASSERT_TRUE(r) << r.error();
  const std::string& c = r->text("c").text;
  EXPECT_EQ(c.find("if ("), std::string::npos) << c;
  auto inputs = random_inputs(def, *shapes, 5, {});
  ASSERT_TRUE(inputs);
  auto want = interpret(def, *shapes, *inputs);
  ASSERT_TRUE(want) << want.error();
  for (int threads : {1, 2}) {
    r->kernel->set_threads(threads);
    auto got = r->kernel->run(*inputs);
    ASSERT_TRUE(got) << got.error();
    TensorComparison cmp = compare_tensors("Y", got->at("Y"), want->at("Y"));
    EXPECT_TRUE(cmp.ok) << threads << " threads: " << cmp.problem << "\n" << c;
  }
}

}  // namespace
}  // namespace tcs
