// Parallel loops over the same iterations become one hand-off to the threads when no
// iteration of one touches what another iteration of the other writes
// (loopnest/JoinParallelLoops.cpp): on hand-built nests, each kept apart where a
// dependence crosses iterations, then on kernels whose every run is checked against the
// interpreter on one and two threads.
#include <gtest/gtest.h>

#include "common/CompiledAgainstInterpreter.h"
#include "common/HandBuiltNests.h"
#include "loopnest/JoinParallelLoops.h"

namespace tcs {
namespace {

using Op = LExpr::Op;
using Kind = LoopNode::Kind;

using testing_support::call;
using Kernel = testing_support::TwoStatements;

LExpr c(int i) { return LExpr::iter(i); }
LExpr n(int64_t v) { return LExpr::integer(v); }
LExpr add(LExpr a, LExpr b) { return LExpr::make(Op::Add, {std::move(a), std::move(b)}); }
LExpr mul(int64_t k, LExpr a) { return LExpr::make(Op::Mul, {n(k), std::move(a)}); }

LoopNode loop(int iter, LExpr init, LExpr upper, std::vector<LoopNode> body, bool parallel) {
  LoopNode f;
  f.kind = Kind::For;
  f.iter = iter;
  f.init = std::move(init);
  f.upper = std::move(upper);
  f.annot.parallel = parallel;
  f.children = std::move(body);
  return f;
}

// Parallel loops over c0 in 0..upper, one per body.
LoopNest nest_of(std::vector<std::vector<LoopNode>> bodies, int64_t upper = 7) {
  LoopNest nest;
  nest.stmts = {{"S0", 0, false, {}}, {"S1", 1, false, {}}};
  nest.iter_names = {"c0", "c1"};
  nest.root.kind = Kind::Block;
  for (auto& body : bodies) nest.root.children.push_back(loop(0, n(0), n(upper), std::move(body), true));
  return nest;
}

// Joins with no nest skipped; the loops left at the top.
size_t joined(const Kernel& k, LoopNest& nest) {
  std::vector<bool> skipped;
  join_parallel_loops(k.def, k.shapes, false, nest, skipped);
  EXPECT_EQ(skipped.size(), nest.root.children.size());
  return nest.root.children.size();
}

int parallel_loops(const std::string& c) {
  int count = 0;
  for (size_t at = c.find("#pragma omp parallel for"); at != std::string::npos; at = c.find("#pragma omp parallel for", at + 1)) ++count;
  return count;
}

TEST(JoinParallelLoops, LoopsThatTouchOnlyTheirOwnIterationsElementsJoin) {
  Kernel k;
  LoopNest nest = nest_of({{call(0, c(0))}, {call(1, c(0))}});
  nest.root.children[1].loop_id = 7;
  ASSERT_EQ(joined(k, nest), 1u) << loop_nest_to_string(nest);
  const LoopNode& f = nest.root.children[0];
  EXPECT_TRUE(f.annot.parallel);
  ASSERT_EQ(f.children.size(), 2u);
  EXPECT_EQ(f.children[0].stmt, 0);  // each iteration runs the first loop's body first
  // then the second's, in a block that keeps that loop's id
  EXPECT_EQ(f.children[1].kind, Kind::Block);
  EXPECT_EQ(f.children[1].loop_id, 7);
  ASSERT_EQ(f.children[1].children.size(), 1u);
  EXPECT_EQ(f.children[1].children[0].stmt, 1);
}

TEST(JoinParallelLoops, AReadOfAnotherIterationsWriteKeepsThemApart) {
  Kernel k;
  // The second loop's iteration c0 reads A(7 - c0), which iteration 7 - c0 of the first writes.
  LoopNest mirrored = nest_of({{call(0, c(0))}, {call(1, add(n(7), LExpr::make(Op::Neg, {c(0)})))}});
  EXPECT_EQ(joined(k, mirrored), 2u) << loop_nest_to_string(mirrored);
  // A write after another iteration's read (S1 reads A(c0 + 1), then S0 writes A(c0)).
  LoopNest anti = nest_of({{call(1, add(c(0), n(1)))}, {call(0, c(0))}}, 6);
  EXPECT_EQ(joined(k, anti), 2u) << loop_nest_to_string(anti);
  LoopNest same = nest_of({{call(1, c(0))}, {call(0, c(0))}}, 6);
  EXPECT_EQ(joined(k, same), 1u) << loop_nest_to_string(same);
}

TEST(JoinParallelLoops, BlocksJoinOnlyWhereTheyMeetNoOtherBlock) {
  Kernel k;
  // Two blocks of four: for c1 in 4 c0 .. 4 c0 + 3.
  auto block = [&](int stmt, int64_t shift) {
    LExpr first = add(mul(4, c(0)), n(shift));
    LExpr last = LExpr::make(Op::Min, {add(mul(4, c(0)), n(3 + shift)), n(7)});
    return std::vector<LoopNode>{loop(1, std::move(first), std::move(last), {call(stmt, c(1))}, false)};
  };
  LoopNest aligned = nest_of({block(0, 0), block(1, 0)}, 1);
  EXPECT_EQ(joined(k, aligned), 1u) << loop_nest_to_string(aligned);
  // Shifted by one, the first block's last read, A(4), is the second block's first write.
  LoopNest shifted = nest_of({block(0, 0), block(1, 1)}, 1);
  EXPECT_EQ(joined(k, shifted), 2u) << loop_nest_to_string(shifted);
}

// A full tile's test keeps its index in range (c1 = 0 below): read past it, each half's
// loop would run on into the next half and, across the tensor's end, touch all of it.
TEST(JoinParallelLoops, AGuardNarrowsTheIndicesItsBodyTouches) {
  Kernel k;
  auto half = [&](int stmt) {
    LoopNode guard;
    guard.kind = Kind::If;
    guard.cond = LExpr::make(Op::Ge, {n(0), c(1)});
    guard.children = {loop(2, n(0), n(3), {call(stmt, add(add(mul(4, c(0)), mul(4, c(1))), c(2)))}, false)};
    return std::vector<LoopNode>{loop(1, n(0), n(1), {guard}, false)};
  };
  LoopNest nest = nest_of({half(0), half(1)}, 1);
  nest.iter_names = {"c0", "c1", "c2"};
  EXPECT_EQ(joined(k, nest), 1u) << loop_nest_to_string(nest);
}

TEST(JoinParallelLoops, OnlyPlainParallelLoopsOverTheSameIterationsJoin) {
  Kernel k;
  LoopNest other_bounds = nest_of({{call(0, c(0))}, {call(1, c(0))}});
  other_bounds.root.children[1].upper = n(6);
  EXPECT_EQ(joined(k, other_bounds), 2u);
  LoopNest serial = nest_of({{call(0, c(0))}, {call(1, c(0))}});
  serial.root.children[1].annot.parallel = false;
  EXPECT_EQ(joined(k, serial), 2u);
  LoopNest totals = nest_of({{call(0, c(0))}, {call(1, c(0))}});
  totals.root.children[0].annot.partial_totals = 8;
  EXPECT_EQ(joined(k, totals), 2u);
  // Past the iterations the check compares pairwise.
  Kernel big;
  big.shapes = *shapes_evaluate(big.def, {{"N", 1024}});
  LoopNest many = nest_of({{call(0, c(0))}, {call(1, c(0))}}, 1023);
  EXPECT_EQ(joined(big, many), 2u);
}

// A nest the backend leaves out (a folded initialisation) is joined across and moves in
// front of the joined loop, where the C text's note on it still precedes its sums.
TEST(JoinParallelLoops, ANestThatDoesNotRunIsJoinedAcrossAndMovesInFront) {
  Kernel k;
  LoopNest nest = nest_of({{call(0, c(0))}, {call(0, c(0))}, {call(1, c(0))}});
  std::vector<bool> skipped = {false, true, false};
  join_parallel_loops(k.def, k.shapes, false, nest, skipped);
  ASSERT_EQ(nest.root.children.size(), 2u) << loop_nest_to_string(nest);
  EXPECT_EQ(skipped, (std::vector<bool>{true, false}));
  EXPECT_EQ(nest.root.children[0].children.size(), 1u);  // the skipped one, untouched
  EXPECT_EQ(nest.root.children[1].children.size(), 2u);
  EXPECT_FALSE(nest.root.children[1].annot.partial_totals);
}

// Sizes read when the kernel runs: the shapes are one example, and T(i + N - 4) reads
// another iteration's element at other sizes (N = 6: iteration 0 reads what 2 writes).
TEST(JoinParallelLoops, NothingJoinsWhereTheSizesAreReadWhenTheKernelRuns) {
  const char* text = "def k(float(N) X) -> (T, O) {\n  T(i) = X(i)\n  T(i) = 2 * X(i) where i in 0:4\n"
                     "  O(i) = T(i + N - 4) where i in 0:4\n}\n";
  const char* options = R"({"outerScheduleFusionStrategy": "Min", "cpu": {"vectorize": false}})";
  testing_support::Built fixed = testing_support::build_and_run(text, {{"N", 4}}, {}, options);
  EXPECT_EQ(parallel_loops(fixed.c), 1) << fixed.c;  // at N = 4 each reads its own iteration's element
  testing_support::Built symbolic = testing_support::build_and_run(text, {{"N", 4}}, {}, options, true);
  EXPECT_EQ(parallel_loops(symbolic.c), 3) << symbolic.c;
}

// A linear layer's bias and ReLU run in its product's loop over column halves; the
// attention example's eight loops over its batch, with each entry's copy of K, run as one;
// an MLP's second layer, which reads every column of the first, stays apart from it. The
// options are the default preset's on an AVX-512 host, spelled out so that every host
// compiles the same loops.
TEST(JoinParallelLoops, KernelsRunTheirStatementsInOneHandOffAndMatchTheInterpreter) {
  const char* product = R"("registerTile": [8, 32], "cpu": {"vectorWidth": 16, "pointLoopOrder": [2, 0, 1], "registerAccumulate": true)";
  testing_support::Built linear = testing_support::build_and_run(
      "def fc(float(B,I) X, float(O,I) W, float(O) Bias) -> (Y) {\n  Y(b, o) +=! X(b, i) * W(o, i)\n"
      "  Y(b, o) = fmax(Y(b, o) + Bias(o), 0)\n}\n",
      {{"B", 32}, {"I", 256}, {"O", 128}}, {},
      (std::string(R"({"outerScheduleFusionStrategy": "Min", "tile": [32, 64, 256], )") + product +
       R"(, "pack": [{"tensor": "W", "depth": 3, "order": [1, 0]}]}})").c_str());
  EXPECT_EQ(parallel_loops(linear.c), 1) << linear.c;
  EXPECT_NE(linear.c.find("parallel, joined into the loop above"), std::string::npos) << "the bias loop's own line";
  testing_support::Built attention = testing_support::build_and_run(R"(
def attention(float(B,T,D) Q, float(B,S,D) K, float(B,S,D) V) -> (O) {
    Sc(b, t, s) +=!  Q(b, t, d) * K(b, s, d)
    Sc(b, t, s)  =   Sc(b, t, s) * rsqrt(float(D))
    mx(b, t)   max=! Sc(b, t, s)
    P(b, t, s)   =   exp(Sc(b, t, s) - mx(b, t))
    sm(b, t)    +=!  P(b, t, s)
    O(b, t, d)  +=!  P(b, t, s) * V(b, s, d)
    O(b, t, d)   =   O(b, t, d) / sm(b, t)
})",
      {{"B", 2}, {"T", 32}, {"S", 32}, {"D", 64}}, {}, R"({"outerScheduleFusionStrategy": "Min", "tile": [1, 32, 512, 256],
        "registerTile": [1, 8, 32], "cpu": {"vectorWidth": 16, "pointLoopOrder": [0, 3, 1, 2], "registerAccumulate": true,
        "pack": [{"tensor": "K", "depth": 1, "order": [0, 2, 1]}]},
        "statements": {"S2": {"registerTile": [], "cpu": {"pointLoopOrder": [], "registerAccumulate": false}},
                       "S4": {"registerTile": [], "cpu": {"pointLoopOrder": [], "registerAccumulate": false}}}})");
  EXPECT_EQ(parallel_loops(attention.c), 1) << attention.c;
  testing_support::Built mlp2 = testing_support::build_and_run(
      "def mlp2(float(B,I) X, float(H,I) W1, float(H) B1, float(O,H) W2, float(O) B2) -> (Y) {\n"
      "  Hid(b, j) +=! X(b, i) * W1(j, i)\n  Hid(b, j) = fmax(Hid(b, j) + B1(j), 0)\n"
      "  Y(b, o) +=! Hid(b, j) * W2(o, j)\n  Y(b, o) = Y(b, o) + B2(o)\n}\n",
      {{"B", 16}, {"I", 128}, {"H", 256}, {"O", 64}}, {},
      (std::string(R"({"outerScheduleFusionStrategy": "Min", "tile": [16, 128, 256], )") + product +
       R"(, "pack": [{"tensor": "W1", "depth": 3, "order": [1, 0]}, {"tensor": "W2", "depth": 3, "order": [1, 0]}]},
          "statements": {"S2": {"tile": [16, 32, 256]}}})").c_str());
  // The first layer and its bias in one; the second layer; its bias, over rows.
  EXPECT_EQ(parallel_loops(mlp2.c), 3) << mlp2.c;
}

// With Min fusion each statement is a loop of its own; a read one element on, across the
// blocks' edge, keeps the second apart, and every run matches the interpreter.
TEST(JoinParallelLoops, ANeighboursReadAcrossTheBlocksEdgeKeepsTheLoopsApart) {
  const char* options = R"({"outerScheduleFusionStrategy": "Min", "tile": [16], "cpu": {"parallel": true}})";
  testing_support::Built same = testing_support::build_and_run(
      "def f(float(N) X) -> (A, B) {\n  A(i) = X(i) * 2\n  B(i) = A(i) + 1\n}\n", {{"N", 64}}, {}, options);
  EXPECT_EQ(parallel_loops(same.c), 1) << same.c;
  testing_support::Built next = testing_support::build_and_run(
      "def f(float(N) X) -> (A, B) {\n  A(i) = X(i) * 2\n  B(j) = A(j) + A(j + 1) where j in 0:N-1\n}\n", {{"N", 64}}, {}, options);
  EXPECT_EQ(parallel_loops(next.c), 2) << next.c;
}

}  // namespace
}  // namespace tcs
