// Mapping options: JSON in and out, and a message naming the field for every mistake.
#include <gtest/gtest.h>

#include <algorithm>

#include "Compiler.h"
#include "lang/Frontend.h"
#include "options/MappingOptions.h"
#include "support/HostCpu.h"

namespace tcs {
namespace {

std::string error_of(const std::string& json) {
  auto o = mapping_options_from_json(json);
  return o ? std::string("(accepted)") : o.error();
}

// The default preset for `def` of `checked` at `sizes`.
MappingOptions default_preset(const std::shared_ptr<const CheckedFile>& checked, const char* def, SizeMap sizes) {
  auto setup = kernel_setup(checked, KernelSpec{def, std::move(sizes), {}});
  EXPECT_TRUE(setup) << setup.error();
  if (!setup) return {};
  auto o = mapping_preset("default", *setup->def, &setup->shapes);
  EXPECT_TRUE(o) << o.error();
  return o ? *o : MappingOptions{};
}

TEST(MappingOptions, RoundTripsThroughJson) {
  MappingOptions o;
  o.outer_fusion = FusionStrategy::Max;
  o.tile = {32, 64, 8};
  o.register_tile = {4, 16};
  o.unroll = 4;
  o.cpu.point_loop_order = {2, 0, 1};
  o.cpu.register_accumulate = true;
  o.cpu.vector_width = 16;
  o.cpu.pack = {{"A", 2, {}}, {"B", 3, {1, 0}}};
  auto back = mapping_options_from_json(mapping_options_to_json(o));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, o);
}

TEST(MappingOptions, NamesTheFieldAtFault) {
  EXPECT_EQ(error_of(R"({"tile": [32, 0]})"), "options: line 1, column 10: tile[1] must be a positive integer up to 1073741824, got 0");
  EXPECT_NE(error_of(R"({"tile": [-1]})").find("tile[0] must be a positive integer"), std::string::npos);
  EXPECT_NE(error_of(R"({"tile": [2.5]})").find("tile[0] must be an integer, got a fractional number"), std::string::npos);
  EXPECT_NE(error_of(R"({"tile": 3})").find("tile must be an array of integers, got a number"), std::string::npos);
  EXPECT_NE(error_of(R"({"tiles": []})").find("unknown option 'tiles' (did you mean 'tile'?)"), std::string::npos);
  EXPECT_NE(error_of(R"({"cpu": {"vectorwidth": 8}})").find("unknown option 'cpu.vectorwidth' (did you mean 'cpu.vectorWidth'?)"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"outerScheduleFusionStrategy": "Most"})").find("must be \"Max\", \"Preserve3Coincident\" or \"Min\", got \"Most\""),
            std::string::npos);
  EXPECT_NE(error_of(R"({"registerTile": [4]})").find("registerTile needs tile"), std::string::npos);
  EXPECT_NE(error_of(R"({"tile": [4], "registerTile": [8]})").find("registerTile[0] (8) is larger than tile[0] (4)"), std::string::npos);
  EXPECT_NE(error_of(R"({"cpu": {"pointLoopOrder": [0, 0]}})").find("cpu.pointLoopOrder must be a permutation"), std::string::npos);
  EXPECT_NE(error_of(R"({"tile": [4], "cpu": {"pack": [{"tensor": "B", "depth": 1, "order": [1, 1]}]}})")
                .find("cpu.pack[0].order must be a permutation"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"tile": [4], "cpu": {"pack": [{"tensor": "B", "depth": 1, "orders": [1, 0]}]}})")
                .find("unknown option 'cpu.pack[0].orders' (a pack request has \"tensor\", \"depth\" and \"order\")"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"cpu": {"vectorWidth": 12}})").find("cpu.vectorWidth must be a power of two"), std::string::npos);
  EXPECT_NE(error_of(R"({"unroll": 0})").find("unroll must be between 1 and 64, got 0"), std::string::npos);
  EXPECT_NE(error_of(R"({"cpu": {"registerAccumulate": true}})").find("cpu.registerAccumulate needs registerTile"), std::string::npos);
  EXPECT_NE(error_of(R"({"fixParametersBeforeScheduling": 1})").find("must be true or false, got a number"), std::string::npos);
  EXPECT_NE(error_of(R"({"tile": [1,2,}")").find("line 1"), std::string::npos);
  EXPECT_NE(error_of(R"({"tile": [1], "tile": [2]})").find("duplicate key \"tile\""), std::string::npos);
  EXPECT_NE(error_of("[]").find("the options must be an object, got an array"), std::string::npos);
  EXPECT_NE(error_of("").find("unexpected end of input"), std::string::npos);
}

TEST(MappingOptions, PresetsAndClasses) {
  auto checked = check_source("k.tc",
                              "def mm(float(M,K) A, float(K,N) B) -> (C) { C(m,n) +=! A(m,k) * B(k,n) }\n"
                              "def relu(float(N) X) -> (Y) { Y(i) = fmax(X(i), 0.0) }\n"
                              "def rowsum(float(M,N) X) -> (S) { S(m) +=! X(m,n) }\n"
                              "def qmm(int8(M,K) A, int8(N,K) B) -> (int32(M,N) C) { C(m,n) +=! int32(A(m,k)) * int32(B(n,k)) }\n");
  ASSERT_FALSE(checked->has_errors());
  EXPECT_EQ(classify_kernel(*checked->find_def("mm")), KernelClass::Contraction);
  // A quantised product widens its reads before it multiplies: still a contraction, with a
  // register tile and its transposed operand packed (it had run 14-22x slower as a plain
  // reduction).
  EXPECT_EQ(classify_kernel(*checked->find_def("qmm")), KernelClass::Contraction);
  auto qmm = mapping_preset("default", *checked->find_def("qmm"));
  ASSERT_TRUE(qmm) << qmm.error();
  EXPECT_FALSE(qmm->register_tile.empty());
  ASSERT_EQ(qmm->cpu.pack.size(), 1u);
  EXPECT_EQ(qmm->cpu.pack[0].tensor, "B");
  EXPECT_EQ(classify_kernel(*checked->find_def("relu")), KernelClass::Elementwise);
  EXPECT_EQ(classify_kernel(*checked->find_def("rowsum")), KernelClass::Reduction);
  auto mm = mapping_preset("default", *checked->find_def("mm"));
  ASSERT_TRUE(mm);
  EXPECT_FALSE(mm->register_tile.empty());
  auto naive = mapping_preset("naive", *checked->find_def("mm"));
  ASSERT_TRUE(naive);
  EXPECT_FALSE(naive->cpu.parallel);
  auto bad = mapping_preset("fastest", *checked->find_def("mm"));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("unknown preset 'fastest' (known presets: naive, default"), std::string::npos);
}

// A convolution whose output row fits one vector takes a second output row into the
// register tile (each weight broadcast then feeds two FMAs), run inside the summed loops
// next to the channel rows; a row of several vectors keeps one output row.
TEST(MappingOptions, DefaultConvolutionTilesTwoOutputRowsWhenARowIsOneVector) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc",
                                                          "def conv(float(N,C,H,W) I, float(F,C,KH,KW) Wt) -> (O) {\n"
                                                          "  O(n, f, h, w) +=! I(n, c, h + kh, w + kw) * Wt(f, c, kh, kw)\n}\n");
  auto preset_at = [&](int64_t w) {
    auto setup = kernel_setup(checked, KernelSpec{"conv", {{"N", 2}, {"C", 4}, {"H", 10}, {"W", w}, {"F", 16}, {"KH", 3}, {"KW", 3}}, {}});
    EXPECT_TRUE(setup) << setup.error();
    auto o = mapping_preset("default", *setup->def, &setup->shapes);
    EXPECT_TRUE(o) << o.error();
    return *o;
  };
  MappingOptions narrow = preset_at(8);  // 6 columns: one vector with AVX2 or AVX-512
  ASSERT_EQ(narrow.register_tile.size(), 4u);
  EXPECT_EQ(narrow.register_tile[2], 2) << "two output rows";
  EXPECT_EQ(narrow.register_tile[1], 4) << "four output channels";
  EXPECT_EQ(narrow.tile[2], 2);
  EXPECT_EQ(narrow.cpu.point_loop_order, (std::vector<int>{0, 4, 5, 6, 1, 2, 3}));
  MappingOptions wide = preset_at(66);  // 64 columns: several vectors
  ASSERT_EQ(wide.register_tile.size(), 4u);
  EXPECT_EQ(wide.register_tile[2], 1);
  EXPECT_EQ(wide.cpu.point_loop_order, (std::vector<int>{0, 2, 4, 5, 6, 1, 3}));
}

// A product whose packed operand every thread would read splits its columns in two, each
// half packed inside the column loop by the thread that reads it (one shared copy made the
// bundled mlp2 take 1-7x its one-thread time, by process, and a 64 x 512 x 256 linear
// layer 0.9-1.1x on two threads, 1.9x split); a small one with too few columns to split
// runs on one thread. A batched one and one whose pack the threads split by batch stay
// parallel as they are.
TEST(MappingOptions, DefaultGivesEachThreadItsOwnPackOfASmallProduct) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def linear(float(B,I) X, float(O,I) W) -> (Y) {
    Y(b, o) +=! X(b, i) * W(o, i)
}
def mlp2(float(B,I) X, float(H,I) W1, float(O,H) W2) -> (Y) {
    L1(b, j) +=! X(b, i) * W1(j, i)
    L1(b, j) = fmax(L1(b, j), 0)
    Y(b, o) +=! L1(b, j) * W2(o, j)
}
def kru3(float(D0,N0) W0, float(D1,N1) W1, float(D2,N2) W2, float(M,N0,N1,N2) X) -> (Y) {
    XW2(m, n0, n1, d2) +=! X(m, n0, n1, n2) * W2(d2, n2)
    XW1(m, n0, d1, d2) +=! XW2(m, n0, n1, d2) * W1(d1, n1)
    Y(m, d0, d1, d2) +=! XW1(m, n0, d1, d2) * W0(d0, n0)
}
def bmm(float(N,M,K) A, float(N,K,P) Bt) -> (C) {
    C(n, m, p) +=! A(n, m, k) * Bt(n, k, p)
}
def scores(float(N,T,D) Q, float(N,S,D) K) -> (P) {
    P(n, t, s) +=! Q(n, t, d) * K(n, s, d)
})");
  ASSERT_FALSE(checked->has_errors());
  auto preset = [&](const char* def, SizeMap sizes) { return default_preset(checked, def, std::move(sizes)); };
  MappingOptions small = preset("linear", {{"B", 32}, {"I", 256}, {"O", 128}});  // 2^20 multiply-adds, 128 KiB of W
  EXPECT_TRUE(small.cpu.parallel);
  ASSERT_EQ(small.tile.size(), 3u);
  EXPECT_GE(small.tile[0], 32) << "every row in one tile (36 with AVX2's 6-row register tiles)";
  EXPECT_EQ(small.tile[1], 64) << "two column tiles of whole register tiles";
  ASSERT_EQ(small.cpu.pack.size(), 1u);
  EXPECT_EQ(small.cpu.pack[0].depth, 3) << "packed inside the column loop";
  MappingOptions narrow = preset("linear", {{"B", 32}, {"I", 256}, {"O", 16}});  // 16 KiB of W, one register tile wide
  EXPECT_FALSE(narrow.cpu.pack.empty());
  EXPECT_FALSE(narrow.cpu.parallel);
  for (SizeMap larger : {SizeMap{{"B", 64}, {"I", 256}, {"O", 128}}, SizeMap{{"B", 64}, {"I", 512}, {"O", 256}},
                         SizeMap{{"B", 16}, {"I", 4096}, {"O", 64}}}) {
    MappingOptions o = preset("linear", larger);  // 2^21 - 2^23 multiply-adds
    EXPECT_TRUE(o.cpu.parallel);
    ASSERT_EQ(o.tile.size(), 3u);
    EXPECT_EQ(o.tile[1] * 2, larger["O"]) << "two column tiles, one a thread";
    ASSERT_EQ(o.cpu.pack.size(), 1u);
    EXPECT_EQ(o.cpu.pack[0].depth, 3) << "packed inside the column loop";
  }
  // Three register tiles of columns (96 with AVX-512's 32-column tiles, 48 with AVX2's 16)
  // would split two to one: the rows split instead, each thread copying all of W.
  int64_t three = 6 * (host_vector_bytes() / 4);
  MappingOptions odd = preset("linear", {{"B", 64}, {"I", 128}, {"O", three}});
  EXPECT_TRUE(odd.cpu.parallel);
  ASSERT_EQ(odd.tile.size(), 3u);
  EXPECT_LT(odd.tile[0], 64) << "two row tiles";
  EXPECT_GE(odd.tile[1], three) << "every column in one tile";
  ASSERT_EQ(odd.cpu.pack.size(), 1u);
  EXPECT_EQ(odd.cpu.pack[0].depth, 3) << "packed inside the row loop";
  // Rows that two tiles of whole register tiles cannot share evenly (16 + 1) keep the
  // columns split.
  MappingOptions uneven = preset("linear", {{"B", 17}, {"I", 128}, {"O", three}});
  ASSERT_EQ(uneven.tile.size(), 3u);
  EXPECT_GE(uneven.tile[0], 17) << "every row in one tile";
  EXPECT_LT(uneven.tile[1], three) << "two column tiles";
  // A chain whose first product the threads already split by its many columns (each
  // packing its own tiles of W1): the second's copy of W2 is the one to split. Counted as
  // shared, W1 kept the second on one copy: 2t/1t 1.6 at these sizes, 1.9 split.
  MappingOptions chain = preset("mlp2", {{"B", 64}, {"I", 512}, {"H", 1024}, {"O", 256}});
  EXPECT_TRUE(chain.cpu.parallel);
  ASSERT_EQ(chain.cpu.pack.size(), 2u);
  auto second = std::find_if(chain.statements.begin(), chain.statements.end(), [](const StatementOptions& so) { return so.statement == "S2"; });
  // Two column tiles of W2's 256 rows: a tile of its own, or the first product's where
  // that is the same (AVX2's 128 columns).
  if (second != chain.statements.end())
    EXPECT_EQ(second->fields["tile"], "[" + std::to_string(chain.tile[0]) + ", 128, " + std::to_string(chain.tile[2]) + "]");
  else
    EXPECT_EQ(chain.tile[1], 128);
  // A larger product keeps a copy made once a call, outside every loop: split, each
  // thread copied its half of KRU3's W2 again for every tile of m and n0 (0.76 s on one
  // thread as it is, 0.83 split).
  MappingOptions kru3 = preset("kru3", {{"M", 128}, {"N0", 128}, {"N1", 128}, {"N2", 128}, {"D0", 64}, {"D1", 64}, {"D2", 64}});
  EXPECT_TRUE(kru3.cpu.parallel);
  ASSERT_FALSE(kru3.cpu.pack.empty());
  EXPECT_EQ(kru3.cpu.pack[0].tensor, "W2");
  EXPECT_EQ(kru3.cpu.pack[0].depth, 0) << "one copy a call";
  MappingOptions tall = preset("linear", {{"B", 1024}, {"I", 256}, {"O", 128}});
  EXPECT_TRUE(tall.cpu.parallel);
  EXPECT_GT(tall.tile[1], 64) << "rows in several tiles, which the threads share: one column tile";
  EXPECT_TRUE(preset("linear", {{"B", 256}, {"I", 8}, {"O", 8}}).cpu.parallel) << "a 256-byte pack";
  EXPECT_TRUE(preset("bmm", {{"N", 20}, {"M", 26}, {"K", 72}, {"P", 26}}).cpu.parallel) << "nothing packed";
  MappingOptions attention = preset("scores", {{"N", 2}, {"T", 32}, {"S", 32}, {"D", 64}});
  ASSERT_FALSE(attention.cpu.pack.empty());
  EXPECT_TRUE(attention.cpu.parallel) << "each thread packs its own batch entries";
  EXPECT_EQ(attention.cpu.pack[0].depth, 1) << "inside the loop over the batch, which the threads split";
}

// A float product's register tile takes 24 of AVX-512's 32 vector registers (12 rows of
// two vectors; AVX2: 6 of two, 12 of 16), and its cache tile along many rows is as large
// as works: each row tile copies the shared operand's tile again. Up to about 512 rows
// make one tile where the threads share four column tiles or more (256 x 1024 x 1024 on
// an Intel core: 186 GFLOP/s against 170 in two tiles); more rows split in two tiles the
// threads share evenly (sgemm 1024^3: 165 GFLOP/s with tiles of 128 rows of 8, 197 with
// 516 of 12); with few columns the rows split as well. Cache tiles stay whole register
// tiles. An int32 product keeps 8 rows (its
// multiply and add need registers of their own: 0.75x with 12), as does a product that
// converts an operand.
TEST(MappingOptions, DefaultRegisterTileFillsTheVectorRegistersAndRowTilesSplitInTwo) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def mm(float(M,K) A, float(K,N) B) -> (C) {
    C(m, n) +=! A(m, k) * B(k, n)
}
def imm(int8(M,K) A, int8(K,N) B) -> (int32(M,N) C) {
    C(m, n) +=! int32(A(m, k)) * int32(B(k, n))
}
def hmm(int8(M,K) A, float(K,N) B) -> (C) {
    C(m, n) +=! float(A(m, k)) * B(k, n)
})");
  ASSERT_FALSE(checked->has_errors());
  const bool wide = host_vector_bytes() >= 64;
  const int64_t rows = wide ? 12 : 6;
  const int64_t many = wide ? 1024 : 512;  // columns for four cache tiles
  for (int64_t m : {128, 132, 256, 512, 1000, 1024, 4096}) {
    MappingOptions o = default_preset(checked, "mm", {{"M", m}, {"K", 1024}, {"N", many}});
    ASSERT_EQ(o.register_tile.size(), 2u) << m;
    EXPECT_EQ(o.register_tile[0], rows) << m;
    EXPECT_EQ(o.tile[0] % rows, 0) << m << " rows: whole register tiles";
    EXPECT_LE(o.tile[0], 512 + rows) << m;
    int64_t tiles = (m + o.tile[0] - 1) / o.tile[0];
    if (m <= 512) {
      EXPECT_EQ(tiles, 1) << m << " rows in one tile of " << o.tile[0];
    } else if (m <= 1024) {
      EXPECT_EQ(tiles, 2) << m << " rows in two tiles of " << o.tile[0];
    }
    EXPECT_GE((many + o.tile[1] - 1) / o.tile[1], 2) << m << " rows: columns for both threads";
    MappingOptions narrow = default_preset(checked, "mm", {{"M", m}, {"K", 1024}, {"N", many / 4}});
    if (m > 128 && m <= 1024) {
      EXPECT_EQ((m + narrow.tile[0] - 1) / narrow.tile[0], 2) << m << " rows of few columns: two tiles";
    }
  }
  for (const char* other : {"imm", "hmm"}) {
    MappingOptions i = default_preset(checked, other, {{"M", 1024}, {"K", 1024}, {"N", 1024}});
    ASSERT_EQ(i.register_tile.size(), 2u) << other;
    EXPECT_EQ(i.register_tile[0], wide ? 8 : 6) << other;
    EXPECT_EQ(i.tile[0] % i.register_tile[0], 0) << other;
  }
}

// A linear layer's W(out, in), copied transposed, is read in runs along the sum: with
// AVX-512 a cache tile of 1024 of it and 128 columns (W(out, in) of 512 x 512 x 2048 on an
// Intel core: 190 GFLOP/s against 169 in tiles of 256 x 512). Not for a sum of 256, nor
// where the rows' operand is read across the sum as well (A(k, m), 0.52x).
TEST(MappingOptions, DefaultTransposedCopiesReadLongRuns) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def mmt(float(M,K) A, float(N,K) B) -> (C) {
    C(m, n) +=! A(m, k) * B(n, k)
}
def mmtt(float(K,M) A, float(N,K) B) -> (C) {
    C(m, n) +=! A(k, m) * B(n, k)
})");
  ASSERT_FALSE(checked->has_errors());
  if (host_vector_bytes() < 64) GTEST_SKIP() << "measured with AVX-512 only; AVX2 keeps its tiles";
  MappingOptions t = default_preset(checked, "mmt", {{"M", 512}, {"K", 2048}, {"N", 512}});
  ASSERT_EQ(t.tile.size(), 3u);
  EXPECT_EQ(t.tile[1], 128);
  EXPECT_EQ(t.tile[2], 1024);
  EXPECT_EQ(t.tile[0] % t.register_tile[0], 0);
  EXPECT_EQ(default_preset(checked, "mmt", {{"M", 512}, {"K", 256}, {"N", 512}}).tile[2], 256) << "a short sum";
  EXPECT_EQ(default_preset(checked, "mmtt", {{"M", 512}, {"K", 2048}, {"N", 512}}).tile[2], 256) << "A(k, m)";
  // Three column tiles would leave one thread a third of the work: the rows split.
  MappingOptions three = default_preset(checked, "mmt", {{"M", 256}, {"K", 512}, {"N", 384}});
  EXPECT_EQ((256 + three.tile[0] - 1) / three.tile[0], 2);
}

// Columns that fit one vector take register tiles one vector wide: eight rows with
// AVX-512 where one vector load serves every row (KRU3's first two products: 1.11x over
// four on an Intel core), four where each row loads its own (a depthwise convolution's
// rows, 1.5x slower with eight) and with AVX2.
TEST(MappingOptions, DefaultOneVectorRegisterTilesFillTheFmaPipes) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def kru3(float(D0,N0) W0, float(D1,N1) W1, float(D2,N2) W2, float(M,N0,N1,N2) X) -> (Y) {
    XW2(m, n0, n1, d2) +=! X(m, n0, n1, n2) * W2(d2, n2)
    XW1(m, n0, d1, d2) +=! XW2(m, n0, n1, d2) * W1(d1, n1)
    Y(m, d0, d1, d2) +=! XW1(m, n0, d1, d2) * W0(d0, n0)
}
def dw(float(N,C,H,W) I, float(C,KH,KW) Wt) -> (O) {
    O(n, c, h, w) +=! I(n, c, h + kh, w + kw) * Wt(c, kh, kw)
})");
  ASSERT_FALSE(checked->has_errors());
  const bool wide = host_vector_bytes() >= 64;
  const int64_t lanes = host_vector_bytes() / 4;
  MappingOptions k = default_preset(checked, "kru3", {{"M", 256}, {"N0", 32}, {"N1", 32}, {"N2", 32}, {"D0", lanes}, {"D1", lanes}, {"D2", lanes}});
  ASSERT_EQ(k.register_tile.size(), 4u);
  EXPECT_EQ(k.register_tile[3], lanes) << "one vector of d2";
  EXPECT_EQ(k.register_tile[2], wide ? 8 : 4) << "rows of n1, one load of W2 serving all";
  MappingOptions d = default_preset(checked, "dw", {{"N", 2}, {"C", 16}, {"H", lanes + 2}, {"W", lanes + 2}, {"KH", 3}, {"KW", 3}});
  ASSERT_EQ(d.register_tile.size(), 4u);
  EXPECT_EQ(d.register_tile[3], lanes);
  EXPECT_EQ(d.register_tile[2], 4) << "rows of h, each loading its own vector";
}

// An attention's row maximum and row sum are reductions but no products: they sum their
// rows in vectors inside the threads' loop. Register-tiled as products, the row sum ran
// its summed loop outside the threads' loop (one parallel region per key) and the row
// maximum stayed scalar.
TEST(MappingOptions, DefaultSumsAnAttentionsRowsInVectorsNotAsProducts) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def attention(float(B,T,D) Q, float(B,S,D) K, float(B,S,D) V) -> (O) {
    Sc(b, t, s) +=! Q(b, t, d) * K(b, s, d)
    mx(b, t) max=! Sc(b, t, s)
    P(b, t, s) = exp(Sc(b, t, s) - mx(b, t))
    sm(b, t) +=! P(b, t, s)
    O(b, t, d) +=! P(b, t, s) * V(b, s, d)
    O(b, t, d) = O(b, t, d) / sm(b, t)
})");
  ASSERT_FALSE(checked->has_errors());
  auto setup = kernel_setup(checked, KernelSpec{"attention", {{"B", 2}, {"T", 32}, {"S", 32}, {"D", 64}}, {}});
  ASSERT_TRUE(setup) << setup.error();
  auto o = mapping_preset("default", *setup->def, &setup->shapes);
  ASSERT_TRUE(o) << o.error();
  auto r = compile_kernel(*setup, *o, CodegenChoice{"cpu", {"c"}, true});
  ASSERT_TRUE(r) << r.error();
  const std::string& c = r->text("c").text;
  for (const char* stmt : {"// S1\n", "// S3\n"}) {
    size_t at = c.find(stmt);
    ASSERT_NE(at, std::string::npos) << c;
    size_t loop = c.rfind('\n', c.rfind('\n', at) - 1);
    std::string row = c.substr(loop, c.rfind('\n', at) - loop);
    EXPECT_NE(row.find("vector("), std::string::npos) << stmt << " sums its row in vectors, not in " << row << "\n" << c;
    EXPECT_NE(row.find("reduction"), std::string::npos) << row;
  }
  for (size_t at = c.find("#pragma omp parallel for"); at != std::string::npos; at = c.find("#pragma omp parallel for", at + 1)) {
    size_t line = c.rfind('\n', at), previous = c.rfind('\n', line - 1);
    EXPECT_EQ(c.substr(previous, line - previous).find("for ("), std::string::npos) << "threads started once per iteration of a loop:\n" << c;
  }
}

// A reduction down columns runs its rows whole in vectors, its summed loop outside them:
// split in two column halves fetched ahead where no left-hand index in front gives the
// threads their share. A sum along rows keeps the order isl gives it. A tensor read in
// two orders is not packed for either, but tiled by a cache line each way.
TEST(MappingOptions, DefaultSumsDownColumnsAlongTheRows) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def colsum(float(M,N) X) -> (S) {
    S(j) +=! X(i, j)
}
def matvect(float(M,N) A, float(M) x) -> (y) {
    y(j) +=! A(i, j) * x(i)
}
def mean3(float(B,T,D) X) -> (Mn) {
    Mn(b, d) +=! X(b, t, d)
}
def rowsum(float(M,N) X) -> (S) {
    S(i) +=! X(i, j)
}
def symm(float(N,N) X) -> (Y) {
    Y(i, j) = X(i, j) + X(j, i)
}
def mm_colsum(float(M,K) A, float(K,N) B) -> (C, S) {
    C(m, n) +=! A(m, k) * B(k, n)
    S(n) +=! B(k, n)
})");
  ASSERT_FALSE(checked->has_errors());
  auto preset = [&](const char* def, SizeMap sizes) { return default_preset(checked, def, std::move(sizes)); };
  int lanes = std::max(4, host_vector_bytes() / 4);
  for (const char* def : {"colsum", "matvect"}) {
    MappingOptions o = preset(def, {{"M", 4096}, {"N", 1024}});
    ASSERT_EQ(o.statements.size(), 1u) << def;
    EXPECT_EQ(o.statements[0].statement, "S0");
    EXPECT_EQ(o.statements[0].fields["tile"], "[512, 4096]") << def << ": two column halves, the rows whole";
    EXPECT_EQ(o.statements[0].fields["cpu.pointLoopOrder"], "[1, 0]") << def;
    EXPECT_EQ(o.cpu.fetch_ahead, 4) << def;
    EXPECT_EQ(o.outer_fusion, FusionStrategy::Min) << def;
  }
  MappingOptions narrow = preset("colsum", {{"M", 4096}, {"N", lanes}});
  ASSERT_EQ(narrow.statements.size(), 1u);
  EXPECT_EQ(narrow.statements[0].fields["tile"], "[" + std::to_string(lanes) + ", 4096]") << "one vector: not split";
  MappingOptions mean = preset("mean3", {{"B", 32}, {"T", 128}, {"D", 256}});
  ASSERT_EQ(mean.statements.size(), 1u);
  EXPECT_EQ(mean.statements[0].fields["tile"], "[1, 256, 128]") << "the batch for the threads, each row whole";
  EXPECT_EQ(mean.statements[0].fields["cpu.pointLoopOrder"], "[0, 2, 1]");
  EXPECT_EQ(mean.cpu.fetch_ahead, 0);
  EXPECT_TRUE(preset("rowsum", {{"M", 4096}, {"N", 1024}}).statements.empty());
  MappingOptions symm = preset("symm", {{"N", 1024}});
  EXPECT_TRUE(symm.cpu.pack.empty()) << "one copy cannot serve both orders";
  EXPECT_EQ(symm.tile, (std::vector<int64_t>{16, 16})) << "a cache line of rows each way";
  MappingOptions product = preset("mm_colsum", {{"M", 512}, {"K", 2048}, {"N", 1024}});
  ASSERT_EQ(product.statements.size(), 1u);
  EXPECT_EQ(product.statements[0].fields["tile"], "[512, 2048]") << "beside a product too";
  EXPECT_EQ(product.statements[0].fields["cpu.pointLoopOrder"], "[1, 0]");
  EXPECT_EQ(product.statements[0].fields["registerTile"], "[]");
}

// A batched matrix-vector product is no register-tiled product: both operands move with
// every output index, so no vector load serves several rows. It sums A's rows in vectors.
TEST(MappingOptions, DefaultSumsABatchedMatrixVectorProductAlongItsRows) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def bmv(float(B,M,N) A, float(B,N) x) -> (y) {
    y(b, i) +=! A(b, i, j) * x(b, j)
})");
  ASSERT_FALSE(checked->has_errors());
  auto setup = kernel_setup(checked, KernelSpec{"bmv", {{"B", 8}, {"M", 64}, {"N", 256}}, {}});
  ASSERT_TRUE(setup) << setup.error();
  auto o = mapping_preset("default", *setup->def, &setup->shapes);
  ASSERT_TRUE(o) << o.error();
  EXPECT_TRUE(o->register_tile.empty());
  auto r = compile_kernel(*setup, *o, CodegenChoice{"cpu", {"c"}, true});
  ASSERT_TRUE(r) << r.error();
  const std::string& c = r->text("c").text;
  size_t at = c.find("// S0\n");
  ASSERT_NE(at, std::string::npos) << c;
  size_t line = c.rfind('\n', at), loop = c.rfind('\n', line - 1);
  std::string row = c.substr(loop, line - loop);
  EXPECT_NE(row.find("for (int64_t c2"), std::string::npos) << "the summed index innermost: " << row << "\n" << c;
  EXPECT_NE(row.find("vector("), std::string::npos) << row;
}

// A weight gradient's last left-hand index (s, 3 values) fills a fraction of a vector; its
// channels c fill whole ones and only I reads them. The register tile runs along c with I
// packed channels last, dO broadcast per row k (28.7 GFLOP/s along s at 32x64x28² -> 64 on
// one Zen 4 core, 101 along c). A batched product of 3 columns, whose other operand reads
// them, keeps its tile.
TEST(MappingOptions, DefaultTilesAWeightGradientAlongItsChannelsNotItsShortLastIndex) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def conv_wgrad(float(N,K,H,W) dO, float(N,C,H2,W2) I) -> (dW) {
    dW(k, c, r, s) +=! dO(n, k, h, w) * I(n, c, h + r, w + s) where r in 0:3, s in 0:3
}
def bmm3(float(B,M,K) X, float(B,K,N) Y) -> (Z) {
    Z(b, m, n) +=! X(b, m, k) * Y(b, k, n)
})");
  ASSERT_FALSE(checked->has_errors());
  int64_t lanes = host_vector_bytes() / 4;
  if (lanes < 8) GTEST_SKIP() << "three taps fill half a vector of " << lanes << " lanes";
  auto setup = kernel_setup(checked, KernelSpec{"conv_wgrad", {{"N", 2}, {"K", 16}, {"H", 6}, {"W", 6}, {"C", 32}, {"H2", 8}, {"W2", 8}}, {}});
  ASSERT_TRUE(setup) << setup.error();
  auto o = mapping_preset("default", *setup->def, &setup->shapes);
  ASSERT_TRUE(o) << o.error();
  ASSERT_EQ(o->register_tile.size(), 4u);
  EXPECT_EQ(o->register_tile[1], 2 * lanes) << "two vectors along c";
  EXPECT_EQ(o->register_tile[3], 1) << "not along s";
  ASSERT_EQ(o->cpu.pack.size(), 1u);
  EXPECT_EQ(o->cpu.pack[0].tensor, "I");
  EXPECT_EQ(o->cpu.pack[0].order, (std::vector<int>{0, 2, 3, 1})) << "channels last";
  EXPECT_LT(o->tile[0] * o->tile[1], 16 * 32) << "one tile of 16 k by 32 c: nothing for a second thread";
  // A 1x3 gradient at batch 1: r and n take one value and make no loops; the copy goes
  // inside the band's loops over k, c and s, where the summed ones begin.
  std::shared_ptr<const CheckedFile> one = check_source("k.tc", R"(
def wgrad13(float(N,K,H,W) dO, float(N,C,H,W2) I) -> (dW) {
    dW(k, c, r, s) +=! dO(n, k, h, w) * I(n, c, h + r, w + s) where r in 0:1, s in 0:3
})");
  ASSERT_FALSE(one->has_errors());
  auto at_one = kernel_setup(one, KernelSpec{"wgrad13", {{"N", 1}, {"K", 16}, {"H", 24}, {"W", 24}, {"C", 32}, {"W2", 26}}, {}});
  ASSERT_TRUE(at_one) << at_one.error();
  auto o1 = mapping_preset("default", *at_one->def, &at_one->shapes);
  ASSERT_TRUE(o1) << o1.error();
  ASSERT_EQ(o1->cpu.pack.size(), 1u);
  EXPECT_EQ(o1->cpu.pack[0].depth, 3) << "inside the loops over k, c and s";

  auto bmm = kernel_setup(checked, KernelSpec{"bmm3", {{"B", 4}, {"M", 64}, {"K", 32}, {"N", 3}}, {}});
  ASSERT_TRUE(bmm) << bmm.error();
  auto b = mapping_preset("default", *bmm->def, &bmm->shapes);
  ASSERT_TRUE(b) << b.error();
  ASSERT_EQ(b->register_tile.size(), 3u);
  EXPECT_EQ(b->register_tile[1], 4) << "rows along m, as before";
}

// A parallel loop inside a sequential one that runs many times would start the threads
// once per iteration: it runs on one thread instead. A few starts are kept.
TEST(MappingOptions, ThreadsAreNotStartedOncePerIterationOfALongSequentialLoop) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", "def colsum(float(M,N) X) -> (S) {\n  S(j) +=! X(i, j)\n}\n");
  ASSERT_FALSE(checked->has_errors());
  auto c_text = [&](int64_t rows, int64_t column_tile) {
    auto setup = kernel_setup(checked, KernelSpec{"colsum", {{"M", rows}, {"N", 256}}, {}});
    EXPECT_TRUE(setup) << setup.error();
    auto o = mapping_options_from_json(R"({"outerScheduleFusionStrategy": "Min", "tile": [)" + std::to_string(column_tile) +
                                       R"(], "cpu": {"pointLoopOrder": [1, 0]}})");
    EXPECT_TRUE(o) << o.error();
    auto r = compile_kernel(*setup, *o, CodegenChoice{"cpu", {"c"}, true});
    EXPECT_TRUE(r) << r.error();
    return r ? r->text("c").text : std::string();
  };
  // S0 runs inside a parallel loop (which may also run the initialisation).
  auto parallel_reduction = [](const std::string& c) {
    size_t at = c.find("// S0\n"), parallel = c.rfind("#pragma omp parallel for", at);
    if (at == std::string::npos || parallel == std::string::npos) return false;
    int depth = 0;
    for (size_t i = c.find('{', parallel); i < at; ++i) {
      depth += c[i] == '{' ? 1 : c[i] == '}' ? -1 : 0;
      if (depth == 0) return false;  // the parallel loop ended before S0
    }
    return true;
  };
  EXPECT_TRUE(parallel_reduction(c_text(4096, 128))) << "column tiles on the threads";
  std::string once_per_row = c_text(4096, 256);
  EXPECT_FALSE(parallel_reduction(once_per_row)) << once_per_row;
  std::string four_rows = c_text(4, 256);
  EXPECT_TRUE(parallel_reduction(four_rows)) << "four starts of the threads\n" << four_rows;
}

// A small operand already in the vector loop's order is read in place, and the product
// split over the threads; one whose rows fall on one cache set (a 2 KiB pitch) or a large
// one is still packed.
TEST(MappingOptions, DefaultReadsASmallOperandInItsOrderInPlace) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def mm(float(M,K) A, float(K,N) B) -> (C) {
    C(m, n) +=! A(m, k) * B(k, n)
})");
  ASSERT_FALSE(checked->has_errors());
  auto preset = [&](SizeMap sizes) { return default_preset(checked, "mm", std::move(sizes)); };
  MappingOptions small = preset({{"M", 64}, {"K", 128}, {"N", 96}});  // 48 KiB of B, rows 384 bytes apart
  EXPECT_TRUE(small.cpu.pack.empty());
  EXPECT_TRUE(small.cpu.parallel);
  EXPECT_FALSE(preset({{"M", 64}, {"K", 32}, {"N", 512}}).cpu.pack.empty()) << "rows 2 KiB apart";
  EXPECT_FALSE(preset({{"M", 256}, {"K", 256}, {"N", 256}}).cpu.pack.empty()) << "256 KiB of B";
}

// Outputs go past the caches when the kernel's tensors together outgrow the last-level
// cache (its reads evict what it wrote), even where the output alone would fit.
TEST(MappingOptions, DefaultStreamsOutputsOfAKernelLargerThanTheLastLevelCache) {
  int64_t llc = host_caches().l3_bytes;
  if (llc <= 0) GTEST_SKIP() << "this host reports no last-level cache";
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def maxpool(float(N,C,H,W) I) -> (O) {
    O(n, c, h, w) max=! I(n, c, 2*h + kh, 2*w + kw) where kh in 0:2, kw in 0:2
}
def relu(float(N,C) X) -> (Y) {
    Y(n, c) = fmax(X(n, c), 0)
})");
  ASSERT_FALSE(checked->has_errors());
  int64_t mib = (llc + (1 << 20) - 1) >> 20;  // 1 MiB of input per channel of 512 x 512 floats
  MappingOptions pool = default_preset(checked, "maxpool", {{"N", 1}, {"C", 2 * mib}, {"H", 512}, {"W", 512}});
  EXPECT_TRUE(pool.cpu.stream_stores) << "twice the cache in, half of it out";
  MappingOptions small = default_preset(checked, "maxpool", {{"N", 1}, {"C", mib / 4 + 1}, {"H", 512}, {"W", 512}});
  EXPECT_FALSE(small.cpu.stream_stores) << "a quarter of the cache in";
  MappingOptions relu = default_preset(checked, "relu", {{"N", 1024}, {"C", llc / 4 / 1024 / 4}});
  EXPECT_FALSE(relu.cpu.stream_stores) << "half the cache in all";
}

// A kernel of a few thousand statement instances (a fraction of a microsecond) runs on one
// thread; a larger one is split.
TEST(MappingOptions, DefaultRunsAFewThousandInstancesOnOneThread) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def pool(float(N,C,H,W) I) -> (O) {
    O(n, c, h, w) max=! I(n, c, 2*h + kh, 2*w + kw) where kh in 0:2, kw in 0:2
})");
  ASSERT_FALSE(checked->has_errors());
  // 2 x 8 x 8 x 8 outputs, four values each: 4096 instances and 1024 initialisations.
  EXPECT_FALSE(default_preset(checked, "pool", {{"N", 2}, {"C", 8}, {"H", 16}, {"W", 16}}).cpu.parallel);
  EXPECT_TRUE(default_preset(checked, "pool", {{"N", 2}, {"C", 8}, {"H", 32}, {"W", 32}}).cpu.parallel);
}

// A batch of one is no loop (the scheduler makes no band member of it): the preset's
// sizes leave its entry out rather than shifting every other size one loop early (a
// convolution with N=1 had its register rows on h and its 32 columns on c: 55x slower).
TEST(MappingOptions, DefaultLeavesOutAnIndexOfOneValue) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc",
                                                          "def conv(float(N,C,H,W) I, float(F,C,KH,KW) Wt) -> (O) {\n"
                                                          "  O(n, f, h, w) +=! I(n, c, h + kh, w + kw) * Wt(f, c, kh, kw)\n}\n");
  auto preset_at = [&](int64_t n) {
    auto setup = kernel_setup(checked, KernelSpec{"conv", {{"N", n}, {"C", 64}, {"H", 30}, {"W", 30}, {"F", 64}, {"KH", 3}, {"KW", 3}}, {}});
    EXPECT_TRUE(setup) << setup.error();
    auto o = mapping_preset("default", *setup->def, &setup->shapes);
    EXPECT_TRUE(o) << o.error();
    return *o;
  };
  MappingOptions two = preset_at(2), one = preset_at(1);
  ASSERT_EQ(two.tile.size(), 7u);
  ASSERT_EQ(two.register_tile.size(), 4u);
  EXPECT_EQ(one.tile, std::vector<int64_t>(two.tile.begin() + 1, two.tile.end()));
  EXPECT_EQ(one.register_tile, std::vector<int64_t>(two.register_tile.begin() + 1, two.register_tile.end()));
  ASSERT_EQ(two.cpu.point_loop_order.front(), 0) << "the batch loop first";
  std::vector<int> shifted;
  for (size_t i = 1; i < two.cpu.point_loop_order.size(); ++i) shifted.push_back(two.cpu.point_loop_order[i] - 1);
  EXPECT_EQ(one.cpu.point_loop_order, shifted);
}

// A product summed over several indices (a depthwise convolution's kh and kw) runs them
// all inside each cache tile, around the register tile that carries the sums: kh tiled by
// 1 had run outside the register tile, storing and reloading its sums once per kh.
TEST(MappingOptions, DefaultSumsADepthwiseWindowWholeInsideEachTile) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def depthwise(float(N,C,H,W) I, float(C,KH,KW) Wt) -> (O) {
    O(n, c, h, w) +=! I(n, c, h + kh, w + kw) * Wt(c, kh, kw)
})");
  ASSERT_FALSE(checked->has_errors());
  for (int64_t k : {3, 5}) {
    MappingOptions o = default_preset(checked, "depthwise", {{"N", 2}, {"C", 16}, {"H", 18}, {"W", 18}, {"KH", k}, {"KW", k}});
    ASSERT_EQ(o.tile.size(), 6u);
    EXPECT_EQ(o.tile[4], k) << "kh is not whole inside the tile";
    EXPECT_GE(o.tile[5], k) << "kw is not whole inside the tile";
    EXPECT_EQ(o.register_tile.size(), 4u);
    EXPECT_TRUE(o.cpu.register_accumulate);
  }
  // A matrix product's one summed index keeps its cache tile.
  std::shared_ptr<const CheckedFile> mm = check_source("m.tc", "def mm(float(M,K) A, float(K,N) B) -> (C) {\n  C(m, n) +=! A(m, k) * B(k, n)\n}\n");
  MappingOptions o = default_preset(mm, "mm", {{"M", 1024}, {"K", 1024}, {"N", 1024}});
  ASSERT_EQ(o.tile.size(), 3u);
  EXPECT_LT(o.tile[2], 1024);
}

// A product of one to three rows whose shared operand is stored with the vector index
// first is dot products along that operand's rows (no register tile, no copy of the whole
// weight per call); a plain B(k, n) keeps its register tile at one row.
TEST(MappingOptions, DefaultTakesALinearLayerOfOneRowAsDotProducts) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def linear(float(B,I) X, float(O,I) W) -> (Y) {
    Y(b, o) +=! X(b, i) * W(o, i)
}
def mm(float(M,K) A, float(K,N) Bm) -> (C) {
    C(m, n) +=! A(m, k) * Bm(k, n)
})");
  ASSERT_FALSE(checked->has_errors());
  auto preset = [&](const char* def, SizeMap sizes) { return default_preset(checked, def, std::move(sizes)); };
  for (int64_t rows : {1, 3}) {
    MappingOptions o = preset("linear", {{"B", rows}, {"I", 1024}, {"O", 1024}});
    EXPECT_TRUE(o.register_tile.empty()) << rows << " rows";
    EXPECT_TRUE(o.cpu.pack.empty()) << rows << " rows";
  }
  EXPECT_FALSE(preset("linear", {{"B", 4}, {"I", 1024}, {"O", 1024}}).register_tile.empty());
  EXPECT_FALSE(preset("mm", {{"M", 1}, {"K", 1024}, {"N", 1024}}).register_tile.empty());
}

TEST(MappingOptions, KernelDependentProblemsAreErrorsNotCrashes) {
  auto setup = kernel_setup(check_source("k.tc", "def mm(float(M,K) A, float(K,N) B) -> (C) { C(m,n) +=! A(m,k) * B(k,n) }\n"),
                            KernelSpec{"mm", {{"M", 8}, {"K", 8}, {"N", 8}}, {}});
  ASSERT_TRUE(setup) << setup.error();
  MappingOptions o;
  o.tile = {4, 4, 4};
  o.cpu.point_loop_order = {1, 0, 3, 2};
  auto r = compile_kernel(*setup, o, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_kind(), ErrorKind::Options);
  EXPECT_NE(r.error().find("cpu.pointLoopOrder has 4 entries, but no tiled band of 'mm' has that many loops"), std::string::npos);
  // Options written for a batch of several, used at a batch of 1: the message names the
  // index that makes no loop.
  auto batch1 = kernel_setup(check_source("k.tc", "def bmm(float(B,M,K) A, float(B,K,N) X) -> (C) {\n"
                                                  "  C(b, m, n) +=! A(b, m, k) * X(b, k, n)\n}\n"),
                             KernelSpec{"bmm", {{"B", 1}, {"M", 8}, {"K", 8}, {"N", 8}}, {}});
  ASSERT_TRUE(batch1) << batch1.error();
  MappingOptions four;
  four.tile = {1, 4, 4, 4};
  four.cpu.point_loop_order = {0, 3, 1, 2};
  auto b1 = compile_kernel(*batch1, four, {});
  ASSERT_FALSE(b1);
  EXPECT_NE(b1.error().find("b takes one value at these sizes and so makes no loop"), std::string::npos) << b1.error();
  o.cpu.point_loop_order = {};
  o.cpu.pack = {{"Z", 1}};
  r = compile_kernel(*setup, o, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_kind(), ErrorKind::Options);
  EXPECT_NE(r.error().find("cpu.pack[0].tensor: 'mm' has no tensor named 'Z'"), std::string::npos);
}

}  // namespace
}  // namespace tcs
