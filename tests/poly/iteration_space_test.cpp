// The explorers' plain-data queries (poly/IterationSpace.cpp): points, times, tiles,
// threads, direct dependences, violations of a what-if schedule, carried dependences and
// tile footprints, on kernels small enough to count by hand.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "Compiler.h"
#include "poly/IterationSpace.h"

namespace tcs {
namespace {

CompileResult lower(const std::string& source, const SizeMap& sizes, const std::string& options_json) {
  CompileRequest r;
  r.source = source;
  r.sizes = sizes;
  r.options.json = options_json;
  auto result = compile(r);
  EXPECT_TRUE(result) << result.error();
  return std::move(*result);
}

const StatementSpace& statement(const IterationSpace& s, const std::string& name) {
  for (const StatementSpace& st : s.statements)
    if (st.name == name) return st;
  throw std::runtime_error("no statement " + name);
}

std::vector<int64_t> at(const StatementSpace& s, size_t point) {
  return {s.coords_of(point), s.coords_of(point) + s.dims.size()};
}

const std::string kMatmul = "def mm(float(M,K) A, float(K,N) B) -> (C) { C(m, n) +=! A(m, k) * B(k, n) }";

TEST(IterationSpace, MatmulPointsTilesAndReductionChain) {
  CompileResult r = lower(kMatmul, {{"M", 4}, {"N", 6}, {"K", 3}},
                          R"({"tile": [2, 3, 3], "tileImperfectlyNested": true, "cpu": {"parallel": true, "vectorize": false}})");
  SpaceQuery q;
  q.threads = 2;
  auto space = iteration_space(r.lowering, q);
  ASSERT_TRUE(space) << space.error();
  const StatementSpace& s0 = statement(*space, "S0");
  EXPECT_EQ(s0.dims, (std::vector<std::string>{"m", "n", "k"}));
  ASSERT_EQ(s0.points.size(), 4u * 6u * 3u);
  EXPECT_EQ(at(s0, 0), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(at(s0, s0.points.size() - 1), (std::vector<int64_t>{3, 5, 2}));
  // Tiles of 2x3 over m and n: 2 x 2 of them, and every point sits in the one its
  // coordinates say.
  ASSERT_EQ(s0.tiles.size(), 4u);
  for (size_t i = 0; i < s0.points.size(); ++i) {
    ASSERT_GE(s0.points[i].tile, 0);
    const std::vector<int64_t>& t = s0.tiles[size_t(s0.points[i].tile)];
    EXPECT_EQ(t[0], at(s0, i)[0] / 2);
    EXPECT_EQ(t[1], at(s0, i)[1] / 3);
  }
  // The outer tile loop runs in parallel: two threads, one per tile row.
  std::set<int> threads;
  for (size_t i = 0; i < s0.points.size(); ++i) {
    threads.insert(s0.points[i].thread);
    EXPECT_EQ(s0.points[i].thread, at(s0, i)[0] / 2);
  }
  EXPECT_EQ(threads, (std::set<int>{0, 1}));
  // Every time is distinct in a sequential schedule, and the init runs before its sums.
  const StatementSpace& init = statement(*space, "S0_init");
  EXPECT_EQ(space->times, int64_t(s0.points.size() + init.points.size()));
  // Direct reduction dependences: k -> k+1 for every (m, n), 4*6*2 of them; none violated.
  int reductions = 0, init_to_sum = 0;
  for (const SpaceDependence& d : space->dependences) {
    EXPECT_FALSE(d.violated);
    if (d.kind == DependenceKind::Reduction) {
      ++reductions;
      const SpacePoint& a = s0.points[size_t(d.from_point)];
      const SpacePoint& b = s0.points[size_t(d.to_point)];
      EXPECT_EQ(at(s0, size_t(d.to_point))[2], at(s0, size_t(d.from_point))[2] + 1);
      EXPECT_LT(a.time, b.time);
      EXPECT_FALSE(d.crosses_tile);  // k is not tiled
    } else if (space->statements[size_t(d.from_stmt)].name == "S0_init") {
      ++init_to_sum;
      EXPECT_EQ(at(s0, size_t(d.to_point))[2], 0);  // the nearest sink: k = 0
    }
  }
  EXPECT_EQ(reductions, 4 * 6 * 2);
  EXPECT_EQ(init_to_sum, 4 * 6);
  EXPECT_EQ(space->violations, 0);
  // The point loop over k around S0 carries the reduction, and nothing else does: not the
  // same member around S0_init alone, not k's tile loop (one tile of 3), not the loops
  // over m and n.
  std::vector<std::pair<int, std::string>> members;
  std::function<void(const ScheduleNode&)> walk = [&](const ScheduleNode& n) {
    for (const BandMember& m : n.members) members.emplace_back(m.loop_id, m.schedule);
    for (const ScheduleNode& c : n.children) walk(c);
  };
  walk(r.lowering.passes.back().tree);
  int carrying = 0;
  for (const auto& [id, text] : members) {
    auto it = space->carried.find(id);
    if (it == space->carried.end()) continue;
    ++carrying;
    EXPECT_NE(text.find("-> [(k)]"), std::string::npos) << text;
    EXPECT_EQ(it->second, std::vector<DependenceKind>{DependenceKind::Reduction}) << text;
  }
  EXPECT_EQ(carrying, 1);
}

TEST(IterationSpace, WhatIfScheduleShowsWhatItBreaks) {
  const std::string two = "def two(float(N) A) -> (B, C) { B(i) = A(i) * 2\n C(i) = B(i) + 1 }";
  CompileResult r = lower(two, {{"N", 5}}, "");
  auto good = iteration_space(r.lowering);
  ASSERT_TRUE(good) << good.error();
  EXPECT_EQ(good->violations, 0);
  // Running C before B reads B before it is written: every flow dependence breaks.
  SpaceQuery q;
  q.schedule = "{ S0[i] -> [1, i]; S1[i] -> [0, i] }";
  auto bad = iteration_space(r.lowering, q);
  ASSERT_TRUE(bad) << bad.error();
  EXPECT_TRUE(bad->what_if);
  int flows = 0;
  for (const SpaceDependence& d : bad->dependences)
    if (d.kind == DependenceKind::Flow) {
      ++flows;
      EXPECT_TRUE(d.violated);
    }
  EXPECT_EQ(flows, 5);
  EXPECT_EQ(bad->violations, 5);
  // Running both together is as wrong as running them backwards.
  q.schedule = "{ S0[i] -> [i]; S1[i] -> [i] }";
  auto together = iteration_space(r.lowering, q);
  ASSERT_TRUE(together);
  EXPECT_EQ(together->violations, 5);
}

TEST(IterationSpace, ReductionsMayBeReorderedButNotRunTogether) {
  const std::string sum = "def s(float(N,K) A) -> (O) { O(i) +=! A(i, k) }";
  CompileResult r = lower(sum, {{"N", 2}, {"K", 4}}, "");
  SpaceQuery q;
  q.schedule = "{ S0_init[i] -> [i, -1]; S0[i, k] -> [i, 3 - k] }";  // k backwards
  auto backwards = iteration_space(r.lowering, q);
  ASSERT_TRUE(backwards) << backwards.error();
  EXPECT_EQ(backwards->violations, 0);
  q.schedule = "{ S0_init[i] -> [i, -1]; S0[i, k] -> [i, 0] }";  // every k at once
  auto together = iteration_space(r.lowering, q);
  ASSERT_TRUE(together);
  EXPECT_EQ(together->violations, 2 * 3);
}

TEST(IterationSpace, BadQueriesSayWhy) {
  CompileResult r = lower(kMatmul, {{"M", 4}, {"N", 4}, {"K", 4}}, "");
  SpaceQuery q;
  q.schedule = "{ S0[m, n, k] -> [m, n, k] ";
  auto unreadable = iteration_space(r.lowering, q);
  ASSERT_FALSE(unreadable);
  EXPECT_EQ(unreadable.error_kind(), ErrorKind::Options);
  q.schedule = "{ S0[m, n, k] -> [m, n, k] }";
  auto partial = iteration_space(r.lowering, q);
  ASSERT_FALSE(partial);
  EXPECT_NE(partial.error().find("S0_init"), std::string::npos) << partial.error();
  SpaceQuery small;
  small.max_points = 50;
  auto many = iteration_space(r.lowering, small);
  ASSERT_FALSE(many);
  EXPECT_EQ(many.error_kind(), ErrorKind::Sizes);
  std::atomic<bool> stop{true};
  SpaceQuery cancelled;
  cancelled.cancel = &stop;
  auto c = iteration_space(r.lowering, cancelled);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error_kind(), ErrorKind::Cancelled);
}

TEST(IterationSpace, FusedRowsInterleaveInTime) {
  // softmax's statements fused along rows: row 0 of every statement runs before row 1 of any.
  const std::string softmax = R"(def softmax(float(N,D) X) -> (Y, mx, ex, s) {
    mx(n) max=! X(n, d)
    ex(n, d) = exp(X(n, d) - mx(n))
    s(n) +=! ex(n, d)
    Y(n, d) = ex(n, d) / s(n)
  })";
  CompileResult r = lower(softmax, {{"N", 3}, {"D", 4}}, "");
  auto space = iteration_space(r.lowering);
  ASSERT_TRUE(space) << space.error();
  int64_t last_of_row0 = -1, first_of_row1 = space->times;
  for (const StatementSpace& s : space->statements)
    for (size_t i = 0; i < s.points.size(); ++i) {
      const SpacePoint& p = s.points[i];
      if (at(s, i)[0] == 0) last_of_row0 = std::max(last_of_row0, p.time);
      if (at(s, i)[0] == 1) first_of_row1 = std::min(first_of_row1, p.time);
    }
  EXPECT_LT(last_of_row0, first_of_row1);
  EXPECT_EQ(space->violations, 0);
}

TEST(IterationSpace, TileFootprints) {
  CompileResult r = lower(kMatmul, {{"M", 64}, {"N", 64}, {"K", 64}},
                          R"({"tile": [16, 32, 8], "tileImperfectlyNested": true, "cpu": {"vectorize": false}})");
  auto f = tile_footprints(r.lowering);
  ASSERT_TRUE(f) << f.error();
  std::map<std::string, int64_t> s0;
  for (const TileFootprint& t : *f)
    if (t.statement == "S0") s0[t.tensor] = t.elements;
  EXPECT_EQ(s0["A"], 16 * 8);
  EXPECT_EQ(s0["B"], 8 * 32);
  EXPECT_EQ(s0["C"], 16 * 32);
}

}  // namespace
}  // namespace tcs

namespace tcs {
namespace {

TEST(IterationSpace, APaddedConvolutionShowsOnlyTheTapsInsideTheImage) {
  // The guard is the statement's domain (lang/DomainGuard): the explorers draw the taps
  // that run, not the whole box, and the initialisation still covers every output.
  const std::string padded = R"(
def padded(float(N,C,H,W) I, float(K,C,3,3) Wt) -> (O) {
    O(n, k, y, x) +=! (y + r - 1 >= 0 && y + r - 1 < H && x + s - 1 >= 0 && x + s - 1 < W) ? I(n, c, y + r - 1, x + s - 1) * Wt(k, c, r, s) : 0.0 where y in 0:H, x in 0:W, r in 0:3, s in 0:3
})";
  const int64_t H = 4, W = 5;
  CompileResult r = lower(padded, {{"N", 1}, {"C", 1}, {"K", 1}, {"H", H}, {"W", W}}, R"({"cpu": {"vectorize": false}})");
  auto space = iteration_space(r.lowering, SpaceQuery{});
  ASSERT_TRUE(space) << space.error();
  size_t inside = 0;
  for (int64_t y = 0; y < H; ++y)
    for (int64_t x = 0; x < W; ++x)
      for (int64_t t = 0; t < 9; ++t)
        inside += y + t / 3 - 1 >= 0 && y + t / 3 - 1 < H && x + t % 3 - 1 >= 0 && x + t % 3 - 1 < W;
  EXPECT_EQ(statement(*space, "S0").points.size(), inside);
  EXPECT_LT(inside, size_t(H * W * 9));
  EXPECT_EQ(statement(*space, "S0_init").points.size(), size_t(H * W));
}

}  // namespace
}  // namespace tcs
