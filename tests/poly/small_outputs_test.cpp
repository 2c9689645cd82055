// Reductions into a few elements. A total runs in parts on the threads
// (loopnest/SplitTotals.cpp): the compiled kernel computes what the interpreter computes,
// gives the same bits on one thread as on two, keeps a NaN and wraps integers as the
// interpreter does, and runs on sizes with fewer iterations than parts; a small total,
// one without threads, and a reduction that has a parallel loop keep their loops. A
// short row summed down a long loop (`S(c) +=! X(n, c)`, loopnest/ShortRows.cpp) takes the
// vector along the long loop, the row unrolled into it, and computes what the
// interpreter computes in every element type; a row under a short window loop, or whose
// bounds are not numbers, keeps its vector.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <regex>

#include "common/CompiledAgainstInterpreter.h"

namespace tcs {
namespace {

using testing_support::Built;
using testing_support::build_and_run;

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.data.size() == b.data.size() && std::memcmp(a.data.data(), b.data.data(), a.data.size()) == 0;
}

bool in_parts(const Built& b) { return b.c.find("parallel partial totals") != std::string::npos; }

Tensor filled(ScalarType type, std::vector<int64_t> shape, auto value_at) {
  Tensor t = *Tensor::zeros(type, std::move(shape));
  for (int64_t i = 0, n = t.numel(); i < n; ++i) {
    if (type == ScalarType::Int32) t.as<int32_t>()[i] = int32_t(value_at(i));
    else t.as<float>()[i] = float(value_at(i));
  }
  return t;
}

TEST(SplitTotals, ASumOverAMatrixRunsInPartsWithTheSameBitsOnAnyThreadCount) {
  Built b = build_and_run("def total(float(M, N) X) -> (S) {\n  S +=! X(i, j)\n}\n", {{"M", 499}, {"N", 301}});
  ASSERT_TRUE(in_parts(b)) << b.c;
  // 150199 additions: eight parts of 18775 (the last 18774), a power of two no larger than the
  // work allows.
  EXPECT_NE(b.c.find("float tcs_parts[8][1];"), std::string::npos) << b.c;
  EXPECT_NE(b.ir.find("@tcs_rt_parallel_for"), std::string::npos);
  ASSERT_TRUE(b.one_thread.count("S") && b.two_threads.count("S"));
  EXPECT_TRUE(same_bits(b.one_thread.at("S"), b.two_threads.at("S")))
      << b.one_thread.at("S").as<float>()[0] << " on one thread, " << b.two_threads.at("S").as<float>()[0] << " on two";
}

TEST(SplitTotals, ALossAndADoubleTotalMatchTheInterpreter) {
  Built loss = build_and_run("def mse(float(N, C) P, float(N, C) T) -> (L) {\n"
                             "  L +=! (P(n, c) - T(n, c)) * (P(n, c) - T(n, c)) / float(N * C)\n}\n",
                             {{"N", 256}, {"C", 1000}});
  EXPECT_TRUE(in_parts(loss)) << loss.c;
  Built wide = build_and_run("def total(float64(M, N) X) -> (S) {\n  S +=! X(i, j)\n}\n", {{"M", 333}, {"N", 301}});
  EXPECT_TRUE(in_parts(wide)) << wide.c;
  EXPECT_NE(wide.c.find("double tcs_parts["), std::string::npos) << wide.c;
}

TEST(SplitTotals, TheLargestAndSmallestValueKeepANaNFromAnyPart) {
  const int64_t n = 200000;
  for (int64_t nan_at : {int64_t(7), n / 2 + 3, n - 1}) {
    Tensor x = filled(ScalarType::Float32, {n}, [&](int64_t i) {
      return i == nan_at ? std::numeric_limits<double>::quiet_NaN() : std::sin(double(i));
    });
    for (const char* text : {"def top(float(N) X) -> (m) {\n  m max=! X(i)\n}\n", "def low(float(N) X) -> (m) {\n  m min=! X(i)\n}\n"}) {
      Built b = build_and_run(text, {{"N", n}}, {{"X", x}});
      ASSERT_TRUE(in_parts(b)) << b.c;
      ASSERT_TRUE(b.two_threads.count("m"));
      EXPECT_TRUE(std::isnan(b.one_thread.at("m").as<float>()[0])) << text << " NaN at " << nan_at;
      EXPECT_TRUE(std::isnan(b.two_threads.at("m").as<float>()[0])) << text << " NaN at " << nan_at;
    }
  }
  // Without a NaN, the extremes are exact: the same bits as the interpreter's.
  Tensor x = filled(ScalarType::Float32, {n}, [](int64_t i) { return std::sin(double(i) * 0.37) * 1e3; });
  Built b = build_and_run("def top(float(N) X) -> (m) {\n  m max=! X(i)\n}\n", {{"N", n}}, {{"X", x}});
  float best = -INFINITY;
  for (int64_t i = 0; i < n; ++i) best = std::max(best, x.as<float>()[i]);
  ASSERT_TRUE(b.two_threads.count("m"));
  EXPECT_EQ(b.two_threads.at("m").as<float>()[0], best);
}

TEST(SplitTotals, IntegerSumsAndProductsWrapAsTheInterpreters) {
  const int64_t n = 100000;
  // Sums past 2^31: every part wraps, and so does the whole.
  Tensor big = filled(ScalarType::Int32, {n}, [](int64_t i) { return 2000000000 - int32_t(i % 7) * 12345; });
  Built sum = build_and_run("def total(int32(N) X) -> (S) {\n  S +=! X(i)\n}\n", {{"N", n}}, {{"X", big}});
  EXPECT_TRUE(in_parts(sum)) << sum.c;
  // An integer copy starts at 0: a -0.0 literal would be a conversion clang warns of.
  EXPECT_NE(sum.c.find("tcs_total[tcs_e] = 0;"), std::string::npos) << sum.c;
  Tensor odd = filled(ScalarType::Int32, {n}, [](int64_t i) { return i % 3 == 0 ? -3 : 5 + 2 * int32_t(i % 11); });
  Built product = build_and_run("def product(int32(N) X) -> (P) {\n  P *=! X(i)\n}\n", {{"N", n}}, {{"X", odd}});
  EXPECT_TRUE(in_parts(product)) << product.c;
  ASSERT_TRUE(product.two_threads.count("P"));
  EXPECT_NE(product.two_threads.at("P").as<int32_t>()[0], 0);  // odd factors: the wrapped product is odd
}

TEST(SplitTotals, TwoTotalsEachRunInTheirOwnParts) {
  Built two = build_and_run("def two(float(N) X) -> (S, Q) {\n  S +=! X(i)\n  Q +=! X(i) * X(i)\n}\n", {{"N", 100000}});
  EXPECT_NE(two.c.find("each part's S0 apart, then into S "), std::string::npos) << two.c;
  EXPECT_NE(two.c.find("each part's S1 apart, then into Q "), std::string::npos) << two.c;
}

TEST(SplitTotals, AFewElementsRunInPartsEachPartWithACopyOfTheOutput) {
  // An image's channel means: every part keeps three sums.
  Built mean = build_and_run("def mean(float(H, W, C) I) -> (M) {\n  M(c) +=! I(h, w, c) / float(H * W)\n}\n",
                             {{"H", 200}, {"W", 300}, {"C", 3}});
  EXPECT_NE(mean.c.find("float tcs_parts[8][3];"), std::string::npos) << mean.c;
  ASSERT_TRUE(mean.one_thread.count("M") && mean.two_threads.count("M"));
  EXPECT_TRUE(same_bits(mean.one_thread.at("M"), mean.two_threads.at("M")));
  // The largest of each of five columns, a NaN in one of them.
  const int64_t n = 60000;
  Tensor x = filled(ScalarType::Float32, {n, 5}, [](int64_t i) {
    return i == 5 * 40000 + 2 ? std::numeric_limits<double>::quiet_NaN() : std::cos(double(i));
  });
  Built top = build_and_run("def top(float(N, C) X) -> (S) {\n  S(c) max=! X(n, c)\n}\n", {{"N", n}, {"C", 5}}, {{"X", x}});
  EXPECT_TRUE(in_parts(top)) << top.c;
  ASSERT_TRUE(top.two_threads.count("S"));
  EXPECT_TRUE(std::isnan(top.two_threads.at("S").as<float>()[2]));
  EXPECT_FALSE(std::isnan(top.two_threads.at("S").as<float>()[1]));
  // Rows of 8 doubles are one register each, a vector the copy would have to keep in
  // memory: not split.
  Built rows = build_and_run("def colsum(float64(N, C) X) -> (S) {\n  S(c) +=! X(n, c)\n}\n", {{"N", 60000}, {"C", 8}});
  EXPECT_FALSE(in_parts(rows)) << rows.c;
  // With the sizes as arguments the output's size is not known: one element only.
  Built open = build_and_run("def colsum(float(N, C) X) -> (S) {\n  S(c) +=! X(n, c)\n}\n", {{"N", 60000}, {"C", 3}}, {},
                             R"({"cpu": {"parallel": true, "vectorWidth": 8}})", true);
  EXPECT_FALSE(in_parts(open)) << open.c;
}

TEST(SplitTotals, FewIterationsAPartShareThemEvenly) {
  // 17 rows in 16 parts: each part one or two rows, none empty (parts of two rows would
  // leave seven empty, and one thread of two a single row).
  Built b = build_and_run("def total(float(N, M) X) -> (S) {\n  S +=! X(n, m) where m in 0:M-1\n}\n", {{"N", 17}, {"M", 200000}}, {},
                          R"({"cpu": {"parallel": true, "vectorWidth": 8}})");
  ASSERT_TRUE(in_parts(b)) << b.c;
  EXPECT_NE(b.c.find("tcs_floord"), std::string::npos) << b.c;
  EXPECT_EQ(b.c.find("<= tcs_min("), std::string::npos) << b.c;
}

TEST(SplitTotals, ElementsTheStatementNeverWritesKeepTheirSign) {
  // S(0) is never written (c runs from 1); the caller's -0 must stay -0, as in the
  // interpreter, though every part's copy is combined into every element.
  std::shared_ptr<const CheckedFile> checked =
      check_source("k.tc", "def acc(float(N, C) X) -> (float(C) S) {\n  S(c) += X(n, c) where c in 1:C\n}\n");
  ASSERT_FALSE(checked->has_errors());
  const SemaDef& def = checked->defs[0];
  auto shapes = shapes_evaluate(def, {{"N", 100003}, {"C", 3}});
  ASSERT_TRUE(shapes) << shapes.error();
  // Rows outside, the three columns inside: no loop for the threads but the split's.
  auto o = mapping_options_from_json(R"({"statements": {"S0": {"tile": [4, 100003], "cpu": {"pointLoopOrder": [1, 0]}}}})");
  ASSERT_TRUE(o) << o.error();
  auto r = compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *o, CodegenChoice{"cpu", {"c"}, true});
  ASSERT_TRUE(r) << r.error();
  ASSERT_NE(r->text("c").text.find("parallel partial totals"), std::string::npos) << r->text("c").text;
  Tensor s = filled(ScalarType::Float32, {3}, [](int64_t i) { return i == 2 ? 5.0 : -0.0; });
  auto inputs = random_inputs(def, *shapes, 3, {{"S", s}});
  ASSERT_TRUE(inputs);
  inputs->insert_or_assign("S", s);
  for (int threads : {1, 2}) {
    r->kernel->set_threads(threads);
    auto got = r->kernel->run(*inputs);
    ASSERT_TRUE(got) << got.error();
    EXPECT_TRUE(std::signbit(got->at("S").as<float>()[0])) << threads << " threads: " << got->at("S").as<float>()[0];
  }
}

TEST(SplitTotals, SizesAsArgumentsRunWithFewerIterationsThanParts) {
  for (int64_t n : {int64_t(1), int64_t(5), int64_t(17), int64_t(100003)}) {
    // The options a large N takes (the default preset keeps a small kernel on one thread).
    Built b = build_and_run("def total(float(N) X) -> (S) {\n  S +=! X(i) * X(i)\n}\n", {{"N", n}}, {},
                            R"({"cpu": {"parallel": true, "vectorWidth": 8}})", true);
    EXPECT_TRUE(in_parts(b)) << n << "\n" << b.c;  // the sizes are not known when it compiles
  }
}

TEST(SplitTotals, SmallTotalsTotalsWithoutThreadsAndParallelReductionsKeepTheirLoops) {
  Built small = build_and_run("def total(float(N) X) -> (S) {\n  S +=! X(i)\n}\n", {{"N", 4096}});
  EXPECT_FALSE(in_parts(small)) << small.c;
  Built rows = build_and_run("def rows(float(M, N) X) -> (S) {\n  S(i) +=! X(i, j)\n}\n", {{"M", 512}, {"N", 512}});
  EXPECT_FALSE(in_parts(rows)) << rows.c;
  Built none = build_and_run("def total(float(N) X) -> (S) {\n  S +=! X(i)\n}\n", {{"N", 100000}}, {},
                             R"({"cpu": {"parallel": false}})");
  EXPECT_FALSE(in_parts(none)) << none.c;
  // A statement that reads an element of its output it does not write: a part would read
  // its copy's.
  Built reads = build_and_run("def again(float(N, C) X) -> (S) {\n  S(c) +=! X(n, c)\n  S(c) += X(n, c) * S(0) where c in 1:C\n}\n",
                              {{"N", 100000}, {"C", 3}}, {}, R"({"statements": {"S1": {"tile": [4, 100000], "cpu": {"pointLoopOrder": [1, 0]}}}})");
  EXPECT_EQ(reads.c.find("each part's S1 apart"), std::string::npos) << reads.c;
}

// The row's loop, unrolled, right under the summed loop around it (which takes the vector,
// or leaves its width to LLVM): both lines of the C text.
bool row_unrolled_into_sum(const Built& b) {
  std::regex sum("for \\(int64_t c[0-9]+ = [^\\n]*// L[0-9]+[^\\n]*\\n *for \\(int64_t c[0-9]+ = 0; "
                 "c[0-9]+ <= [0-9]+; c[0-9]+\\+\\+\\) \\{  // L[0-9]+ unroll\\(full\\)");
  return std::regex_search(b.c, sum);
}

TEST(ShortRows, ASumDownColumnsTakesTheVectorAlongTheColumns) {
  for (const char* type : {"float", "float64", "float16", "int32"})
    for (int64_t c : {2, 3, 5}) {
      std::string text = std::string("def colsum(") + type + "(N, C) X) -> (S) {\n  S(c) +=! X(n, c)\n}\n";
      Built b = build_and_run(text.c_str(), {{"N", 4000}, {"C", c}});
      EXPECT_TRUE(row_unrolled_into_sum(b)) << type << " C=" << c << "\n" << b.c;
    }
  // An image's three channels, each a mean over every pixel; the largest of each column.
  Built mean = build_and_run("def mean(float(H, W, C) I) -> (M) {\n  M(c) +=! I(h, w, c) / float(H * W)\n}\n",
                             {{"H", 60}, {"W", 70}, {"C", 3}});
  EXPECT_TRUE(row_unrolled_into_sum(mean)) << mean.c;
  Built top = build_and_run("def top(float(N, C) X) -> (S) {\n  S(c) max=! X(n, c)\n}\n", {{"N", 5000}, {"C", 4}});
  EXPECT_TRUE(row_unrolled_into_sum(top)) << top.c;
}

TEST(ShortRows, ARowUnderAWindowOrAPartialTileKeepsItsVector) {
  // A window of 3 taps is no long loop: its vector would hold 3 lanes of 16 gathered.
  Built window = build_and_run("def win(float(N, C) X) -> (S) {\n  S(n, c) +=! X(n + k, c) where k in 0:3\n}\n",
                               {{"N", 3000}, {"C", 3}});
  EXPECT_FALSE(row_unrolled_into_sum(window)) << window.c;
  EXPECT_EQ(window.c.find("unroll(full)"), std::string::npos) << window.c;
  // Columns tiled by 2 of 5: the row's bounds are not numbers, and it cannot be unrolled.
  Built tiled = build_and_run("def colsum(float(N, C) X) -> (S) {\n  S(c) +=! X(n, c)\n}\n", {{"N", 3000}, {"C", 5}}, {},
                              R"({"statements": {"S0": {"tile": [2, 999], "cpu": {"pointLoopOrder": [1, 0]}}}})");
  EXPECT_EQ(tiled.c.find("unroll(full)"), std::string::npos) << tiled.c;
}

TEST(ShortRows, RowsTooWideForOneStepKeepTheirVector) {
  // Rows of 15 floats or doubles: their shuffles cost more than the masked row's chain.
  for (const char* type : {"float", "float64"}) {
    std::string text = std::string("def colsum(") + type + "(N, C) X) -> (S) {\n  S(c) +=! X(n, c)\n}\n";
    Built wide = build_and_run(text.c_str(), {{"N", 3000}, {"C", 15}});
    EXPECT_FALSE(row_unrolled_into_sum(wide)) << wide.c;
  }
  // A row as long as a vector or longer is a vector already.
  Built full = build_and_run("def colsum(float(N, C) X) -> (S) {\n  S(c) +=! X(n, c)\n}\n", {{"N", 3000}, {"C", 64}});
  EXPECT_FALSE(row_unrolled_into_sum(full)) << full.c;
}

}  // namespace
}  // namespace tcs
