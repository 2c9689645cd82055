// The reference interpreter (LANGUAGE.md §3 and §5) against results computed here by hand:
// plain loops over small tensors, or literal values. Every kernel goes through the same
// path as the CLI: check, bind sizes from the supplied shapes, evaluate shapes, interpret.
// Also random_inputs: seeded determinism and in-bounds integer subscripts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lang/Frontend.h"
#include "lang/Shapes.h"
#include "runtime/Compare.h"
#include "runtime/Half.h"
#include "runtime/Interpreter.h"
#include "runtime/RandomInputs.h"
#include "runtime/Tensor.h"

namespace tcs {
namespace {

// ----------------------------------------------------------------------------- helpers

::testing::AssertionResult has_substr(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" lacks \"" << part << "\"";
}

using Shape = std::vector<int64_t>;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A tensor from values in row-major order, each converted as Tensor::set_from_double does.
Tensor make(ScalarType dtype, Shape shape, const std::vector<double>& values) {
  auto t = Tensor::zeros(dtype, std::move(shape));
  EXPECT_TRUE(t.ok());
  if (!t.ok()) return Tensor{};
  EXPECT_EQ(size_t(t->numel()), values.size()) << "value count does not match the shape";
  for (size_t i = 0; i < values.size() && int64_t(i) < t->numel(); ++i) t->set_from_double(int64_t(i), values[i]);
  return std::move(*t);
}

Tensor f32(Shape shape, const std::vector<double>& values) { return make(ScalarType::Float32, std::move(shape), values); }

// Exact 64-bit integers (beyond 2^53 a double would round them).
Tensor i64(Shape shape, const std::vector<int64_t>& values) {
  auto t = Tensor::zeros(ScalarType::Int64, std::move(shape));
  EXPECT_TRUE(t.ok());
  for (size_t i = 0; i < values.size(); ++i) t->as<int64_t>()[i] = values[i];
  return std::move(*t);
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.get_as_double(i));
  return v;
}

// Runs `entry` (or the only def) of `src` on `supplied` as the CLI does.
Expected<TensorMap> run(const std::string& src, const TensorMap& supplied, const SizeMap& explicit_sizes = {},
                        const std::string& entry = "") {
  auto file = check_source("test.tc", src);
  if (file->has_errors()) return Error{ErrorKind::Source, "does not check:\n" + diagnostics_format(file->file, file->diagnostics)};
  auto def = select_entry(*file, entry);
  if (!def) return def.failure();
  std::map<std::string, TensorSignature> sigs;
  for (const auto& [name, t] : supplied) sigs[name] = {t.dtype, t.shape};
  auto sizes = sizes_bind(**def, explicit_sizes, sigs);
  if (!sizes) return Error{ErrorKind::Source, "sizes_bind: " + sizes.error()};
  auto shapes = shapes_evaluate(**def, *sizes);
  if (!shapes) return Error{ErrorKind::Source, "shapes_evaluate: " + shapes.error()};
  return interpret(**def, *shapes, supplied);
}

// The output `name` of a successful run; fails the test otherwise.
#define RUN_OK(result, src, ...)                                  \
  auto result##_r = run(src, __VA_ARGS__);                        \
  ASSERT_TRUE(result##_r.ok()) << result##_r.error();             \
  TensorMap& result = *result##_r

const Tensor& out(const TensorMap& m, const std::string& name) {
  auto it = m.find(name);
  EXPECT_NE(it, m.end()) << "no output '" << name << "'";
  static const Tensor none;
  return it == m.end() ? none : it->second;
}

void expect_values(const Tensor& t, const std::vector<double>& expected, const char* what = "") {
  std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " element " << i << " is " << got[i];
    } else {
      EXPECT_EQ(got[i], expected[i]) << what << " element " << i;
    }
  }
}

// ---------------------------------------------------------------------- linear algebra

TEST(Interpreter, Matmul) {
  const int64_t M = 2, K = 3, N = 4;
  std::vector<double> a, b;
  for (int64_t i = 0; i < M * K; ++i) a.push_back(0.5 * double(i) - 1.0);
  for (int64_t i = 0; i < K * N; ++i) b.push_back(double((i * 7) % 5) - 2.0);
  RUN_OK(r, "def matmul(float(M,K) A, float(K,N) B) -> (C) { C(m, n) +=! A(m, k) * B(k, n) }\n",
         {{"A", f32({M, K}, a)}, {"B", f32({K, N}, b)}});
  const Tensor& C = out(r, "C");
  EXPECT_EQ(C.dtype, ScalarType::Float32);
  EXPECT_EQ(C.shape, (Shape{M, N}));
  std::vector<double> expected(size_t(M * N), 0.0);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k) expected[size_t(m * N + n)] += a[size_t(m * K + k)] * b[size_t(k * N + n)];
  expect_values(C, expected);
  EXPECT_EQ(r.size(), 1u);  // only outputs come back
}

TEST(Interpreter, AccumulatesIntoASuppliedOutput) {
  const char* src = "def gemm(float(M,K) A, float(K,N) B) -> (C) { C(m, n) += A(m, k) * B(k, n) }\n";
  Tensor A = f32({2, 2}, {1, 2, 3, 4});
  Tensor B = f32({2, 2}, {5, 6, 7, 8});
  // A·B = [[19, 22], [43, 50]].
  RUN_OK(with_c, src, {{"A", A}, {"B", B}, {"C", f32({2, 2}, {100, 200, 300, 400})}});
  expect_values(out(with_c, "C"), {119, 222, 343, 450});
  // Not supplied: C starts at zero.
  RUN_OK(without, src, {{"A", A}, {"B", B}});
  expect_values(out(without, "C"), {19, 22, 43, 50});
  // A supplied output of the wrong shape is refused with its name.
  auto bad = run(src, {{"A", A}, {"B", B}, {"C", f32({3}, {0, 0, 0})}});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(has_substr(bad.error(), "'C'"));
}

// ----------------------------------------------------------------- convolution, pooling

TEST(Interpreter, StridedConv) {
  const int64_t N = 1, C = 2, H = 7, W = 6, F = 2, KH = 3, KW = 2;
  const int64_t HO = (H - KH) / 2 + 1, WO = (W - KW) / 2 + 1;  // 3 x 3
  std::vector<double> in, wt;
  for (int64_t i = 0; i < N * C * H * W; ++i) in.push_back(double(i % 11) - 5.0);
  for (int64_t i = 0; i < F * C * KH * KW; ++i) wt.push_back(double(i % 4) * 0.25 - 0.5);
  RUN_OK(r,
         "def sconv(float(N,C,H,W) I, float(F,C,KH,KW) Wt) -> (O) {\n"
         "    O(n, f, h, w) +=! I(n, c, 2*h + kh, 2*w + kw) * Wt(f, c, kh, kw)\n"
         "}\n",
         {{"I", f32({N, C, H, W}, in)}, {"Wt", f32({F, C, KH, KW}, wt)}});
  const Tensor& O = out(r, "O");
  ASSERT_EQ(O.shape, (Shape{N, F, HO, WO}));
  std::vector<double> expected;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t f = 0; f < F; ++f)
      for (int64_t h = 0; h < HO; ++h)
        for (int64_t w = 0; w < WO; ++w) {
          double s = 0;
          for (int64_t c = 0; c < C; ++c)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw)
                s += in[size_t(((n * C + c) * H + 2 * h + kh) * W + 2 * w + kw)] *
                     wt[size_t(((f * C + c) * KH + kh) * KW + kw)];
          expected.push_back(s);
        }
  expect_values(O, expected);
}

TEST(Interpreter, ConvWithBiasReadsTheEarlierResult) {
  // 1 channel, 3x3 image, 2x2 kernel of ones: each output is the sum of a 2x2 window.
  RUN_OK(r,
         "def conv2d(float(N,C,H,W) I, float(F,C,KH,KW) Wt, float(F) Bias) -> (O) {\n"
         "    O(n, f, h, w) +=! I(n, c, h + kh, w + kw) * Wt(f, c, kh, kw)\n"
         "    O(n, f, h, w)  =  O(n, f, h, w) + Bias(f)\n"
         "}\n",
         {{"I", f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
          {"Wt", f32({2, 1, 2, 2}, {1, 1, 1, 1, 1, 0, 0, -1})},
          {"Bias", f32({2}, {10, 100})}});
  // f=0: window sums 12 16 24 28, +10. f=1: top-left minus bottom-right = -4 each, +100.
  expect_values(out(r, "O"), {22, 26, 34, 38, 96, 96, 96, 96});
}

TEST(Interpreter, Maxpool) {
  const char* src =
      "def maxpool2x2(float(N,C,H,W) I) -> (O) {\n"
      "    O(n, c, h, w) max=! I(n, c, 2*h + kh, 2*w + kw) where kh in 0:2, kw in 0:2\n"
      "}\n";
  RUN_OK(r, src,
         {{"I", f32({1, 1, 4, 4}, {1, -2, 3, 0,    //
                                   5, 4, -1, -7,   //
                                   -9, -8, 2, 2,   //
                                   -6, -5, 2, 1})}});
  EXPECT_EQ(out(r, "O").shape, (Shape{1, 1, 2, 2}));
  expect_values(out(r, "O"), {5, 3, -5, 2});
  // An odd height drops the last row; all-negative windows stay negative (identity -inf).
  RUN_OK(odd, src, {{"I", f32({1, 1, 3, 2}, {-4, -3, -2, -9, 50, 60})}});
  EXPECT_EQ(out(odd, "O").shape, (Shape{1, 1, 1, 1}));
  expect_values(out(odd, "O"), {-2});
}

// --------------------------------------------------------------- temporaries, argmin

TEST(Interpreter, SoftmaxWithTemporaries) {
  const int64_t N = 3, D = 4;
  std::vector<double> x = {0.5, -1, 2, 0.25, 10, 10, 10, 10, -3, 0, 3, 1.5};
  RUN_OK(r,
         "def softmax(float(N,D) X) -> (Y) {\n"
         "    mx(n)  max=! X(n, d)\n"
         "    e(n,d) =     exp(X(n, d) - mx(n))\n"
         "    s(n)   +=!   e(n, d)\n"
         "    Y(n,d) =     e(n, d) / s(n)\n"
         "}\n",
         {{"X", f32({N, D}, x)}});
  ASSERT_EQ(r.size(), 1u);  // temporaries are not returned
  const Tensor& Y = out(r, "Y");
  ASSERT_EQ(Y.shape, (Shape{N, D}));
  for (int64_t n = 0; n < N; ++n) {
    double mx = -kInf, sum = 0, row = 0;
    for (int64_t d = 0; d < D; ++d) mx = std::max(mx, x[size_t(n * D + d)]);
    for (int64_t d = 0; d < D; ++d) sum += std::exp(x[size_t(n * D + d)] - mx);
    for (int64_t d = 0; d < D; ++d) {
      double y = Y.get_as_double(n * D + d);
      EXPECT_NEAR(y, std::exp(x[size_t(n * D + d)] - mx) / sum, 1e-6) << n << "," << d;
      row += y;
    }
    EXPECT_NEAR(row, 1.0, 1e-6) << "row " << n;
  }
  EXPECT_FLOAT_EQ(float(Y.get_as_double(4)), 0.25f);  // a row of equal values
}

TEST(Interpreter, ArgminWithTernaryTakesTheFirstOfTies) {
  RUN_OK(r,
         "def argmin(float(M,N) A) -> (Idx) {\n"
         "    mn(m)  min=! A(m, n)\n"
         "    Idx(m) min=! A(m, n) == mn(m) ? n : N\n"
         "}\n",
         {{"A", f32({4, 5}, {3, 1, 4, 1, 5,      // tie at 1 and 3
                             -2, -2, -2, -2, -2,  // all equal
                             9, 8, 7, 6, 5,       // last
                             0, 1, 2, 3, -0.5})}});
  const Tensor& Idx = out(r, "Idx");
  EXPECT_EQ(Idx.dtype, ScalarType::Int32);
  expect_values(Idx, {1, 0, 4, 4});
}

// ------------------------------------------------------------------------ integer types

TEST(Interpreter, Int8WrapsAround) {
  RUN_OK(r,
         "def f(int8(N) A, int8(N) B) -> (S, P, D, Ng) {\n"
         "    S(i) = A(i) + B(i)\n"
         "    P(i) = A(i) * B(i)\n"
         "    D(i) = A(i) - B(i)\n"
         "    Ng(i) = -A(i)\n"
         "}\n",
         {{"A", make(ScalarType::Int8, {4}, {100, -100, 127, -128})},
          {"B", make(ScalarType::Int8, {4}, {100, -100, 1, 1})}});
  EXPECT_EQ(out(r, "S").dtype, ScalarType::Int8);
  expect_values(out(r, "S"), {-56, 56, -128, -127});
  expect_values(out(r, "P"), {16, 16, 127, -128});    // 10000 mod 256 = 16
  expect_values(out(r, "D"), {0, 0, 126, 127});       // -128 - 1 wraps
  expect_values(out(r, "Ng"), {-100, 100, -127, -128});  // -(-128) wraps
}

TEST(Interpreter, Int8ReductionWraps) {
  RUN_OK(r, "def f(int8(N) A) -> (S) { S +=! A(i) }\n", {{"A", make(ScalarType::Int8, {3}, {100, 100, 100})}});
  EXPECT_EQ(out(r, "S").dtype, ScalarType::Int8);
  expect_values(out(r, "S"), {44});  // 300 - 256
}

TEST(Interpreter, UInt8) {
  RUN_OK(r,
         "def f(uint8(N) A, uint8(N) B) -> (S, D, Q) {\n"
         "    S(i) = A(i) + B(i)\n"
         "    D(i) = A(i) - B(i)\n"
         "    Q(i) = A(i) / B(i)\n"
         "}\n",
         {{"A", make(ScalarType::UInt8, {3}, {250, 3, 255})}, {"B", make(ScalarType::UInt8, {3}, {10, 5, 2})}});
  EXPECT_EQ(out(r, "S").dtype, ScalarType::UInt8);
  expect_values(out(r, "S"), {4, 8, 1});
  expect_values(out(r, "D"), {240, 254, 253});
  expect_values(out(r, "Q"), {25, 0, 127});
  // Mixed with int8: the widest width, signed.
  RUN_OK(m, "def g(uint8(N) A, int8(N) B) -> (S) { S(i) = A(i) + B(i) }\n",
         {{"A", make(ScalarType::UInt8, {2}, {200, 1})}, {"B", make(ScalarType::Int8, {2}, {100, -2})}});
  EXPECT_EQ(out(m, "S").dtype, ScalarType::Int8);
  expect_values(out(m, "S"), {44, -1});  // 300 wraps to 44 in 8 bits
}

TEST(Interpreter, Int64) {
  const int64_t big = int64_t(1) << 40;
  RUN_OK(r,
         "def f(int64(N) A, int32(N) B) -> (P, S) {\n"
         "    P(i) = A(i) * B(i)\n"
         "    S +=! A(i)\n"
         "}\n",
         {{"A", i64({3}, {3000000000LL, -5000000000LL, big + 1})},
          {"B", make(ScalarType::Int32, {3}, {3, 2, 1024})}});
  const Tensor& P = out(r, "P");
  ASSERT_EQ(P.dtype, ScalarType::Int64);
  EXPECT_EQ(P.as<int64_t>()[0], 9000000000LL);
  EXPECT_EQ(P.as<int64_t>()[1], -10000000000LL);
  EXPECT_EQ(P.as<int64_t>()[2], (big + 1) * 1024);  // 2^50 + 1024, beyond float precision
  const Tensor& S = out(r, "S");
  ASSERT_EQ(S.dtype, ScalarType::Int64);
  EXPECT_EQ(S.as<int64_t>()[0], 3000000000LL - 5000000000LL + big + 1);
}

TEST(Interpreter, Int32WrapsAround) {
  RUN_OK(r, "def f(int32(N) A) -> (S) { S(i) = A(i) + 1 }\n",
         {{"A", make(ScalarType::Int32, {2}, {2147483647.0, -5})}});
  EXPECT_EQ(out(r, "S").dtype, ScalarType::Int32);
  expect_values(out(r, "S"), {-2147483648.0, -4});
}

TEST(Interpreter, IntegerDivisionTruncatesTowardZero) {
  RUN_OK(r,
         "def f(int32(N) A, int32(N) B) -> (Q, R) {\n"
         "    Q(i) = A(i) / B(i)\n"
         "    R(i) = A(i) % B(i)\n"
         "}\n",
         {{"A", make(ScalarType::Int32, {5}, {7, -7, 7, -7, -2147483648.0})},
          {"B", make(ScalarType::Int32, {5}, {2, 2, -2, -2, -1})}});
  expect_values(out(r, "Q"), {3, -3, -3, 3, -2147483648.0});  // INT32_MIN / -1 wraps
  expect_values(out(r, "R"), {1, -1, 1, -1, 0});
}

TEST(Interpreter, IntegerDivisionByZeroIsAnError) {
  const char* src = "def f(int32(N) A, int32(N) B) -> (Q) { Q(i) = A(i) / B(i) }\n";
  auto r = run(src, {{"A", make(ScalarType::Int32, {3}, {1, 2, 3})}, {"B", make(ScalarType::Int32, {3}, {1, 0, 1})}});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(has_substr(r.error(), "division by zero"));
  EXPECT_TRUE(has_substr(r.error(), "i=1"));
  auto m = run("def f(int64(N) A, int64(N) B) -> (R) { R(i) = A(i) % B(i) }\n",
               {{"A", i64({1}, {5})}, {"B", i64({1}, {0})}});
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(has_substr(m.error(), "division by zero"));
  // Float division by zero is IEEE: infinities and NaN.
  RUN_OK(fl, "def f(float(N) A, float(N) B) -> (Q) { Q(i) = A(i) / B(i) }\n",
         {{"A", f32({3}, {1, -1, 0})}, {"B", f32({3}, {0, 0, 0})}});
  expect_values(out(fl, "Q"), {kInf, -kInf, kNaN});
}

TEST(Interpreter, FloatToIntegerCastsSaturate) {
  RUN_OK(r,
         "def f(float(N) X) -> (A, B, C, D) {\n"
         "    A(i) = int8(X(i))\n"
         "    B(i) = int32(X(i))\n"
         "    C(i) = uint8(X(i))\n"
         "    D(i) = int64(X(i))\n"
         "}\n",
         {{"X", f32({8}, {300, -300, kNaN, 1e10, -1e10, 2.7, -2.7, kInf})}});
  EXPECT_EQ(out(r, "A").dtype, ScalarType::Int8);
  EXPECT_EQ(out(r, "B").dtype, ScalarType::Int32);
  EXPECT_EQ(out(r, "C").dtype, ScalarType::UInt8);
  expect_values(out(r, "A"), {127, -128, 0, 127, -128, 2, -2, 127});
  expect_values(out(r, "B"), {300, -300, 0, 2147483647.0, -2147483648.0, 2, -2, 2147483647.0});
  expect_values(out(r, "C"), {255, 0, 0, 255, 0, 2, 0, 255});
  const Tensor& D = out(r, "D");
  EXPECT_EQ(D.as<int64_t>()[3], 10000000000LL);
  EXPECT_EQ(D.as<int64_t>()[7], std::numeric_limits<int64_t>::max());
}

TEST(Interpreter, CastsOfLiterals) {
  RUN_OK(r,
         "def f(float(N) X) -> (A, B, W) {\n"
         "    A(i) = int8(300.0) where exists X(i)\n"
         "    B(i) = int8(-1e9) where exists X(i)\n"
         "    W(i) = int8(300) where exists X(i)\n"
         "}\n",
         {{"X", f32({2}, {0, 0})}});
  expect_values(out(r, "A"), {127, 127});
  expect_values(out(r, "B"), {-128, -128});
  expect_values(out(r, "W"), {44, 44});  // integer to integer wraps: 300 - 256
}

TEST(Interpreter, Float32ReductionsAccumulateInDouble) {
  // In float32, 2^24 + 1 rounds back to 2^24, so a float accumulator would end at 0.
  RUN_OK(r, "def f(float(N) A) -> (S) { S +=! A(i) }\n", {{"A", f32({4}, {16777216, 1, 1, -16777216})}});
  expect_values(out(r, "S"), {2});
}

TEST(Interpreter, ReductionsIntoExistingValues) {
  // min= without '!' starts from what the caller passed.
  RUN_OK(r, "def f(float(M,N) A) -> (O) { O(i) min= A(i, j) }\n",
         {{"A", f32({2, 2}, {5, 3, -1, 4})}, {"O", f32({2}, {0, 7})}});
  expect_values(out(r, "O"), {0, -1});
  // op= into a temporary that nothing wrote starts from zero.
  RUN_OK(t,
         "def g(float(N) A) -> (O) {\n"
         "    t(i) += A(i)\n"
         "    t(i) += A(i)\n"
         "    O(i) = t(i)\n"
         "}\n",
         {{"A", f32({3}, {1, 2, 3})}});
  expect_values(out(t, "O"), {2, 4, 6});
}

TEST(Interpreter, TernaryEvaluatesOnlyTheChosenBranch) {
  RUN_OK(r, "def f(int32(N) A, int32(N) B) -> (Q) { Q(i) = B(i) != 0 ? A(i) / B(i) : -1 }\n",
         {{"A", make(ScalarType::Int32, {3}, {9, 9, -9})}, {"B", make(ScalarType::Int32, {3}, {2, 0, 4})}});
  expect_values(out(r, "Q"), {4, -1, -2});
}

// --------------------------------------------------------------------- op=! identities

TEST(Interpreter, MinReductionOverFloatsStartsAtInfinity) {
  RUN_OK(r, "def f(float(M,N) A) -> (O) { O(i) min=! A(i, j) }\n",
         {{"A", f32({3, 2}, {5, 3, kInf, kInf, 1e30, 2e30})}});
  expect_values(out(r, "O"), {3, kInf, 1e30f});
}

TEST(Interpreter, MaxReductionOverInt32StartsAtTheMinimum) {
  const double lowest = -2147483648.0;
  RUN_OK(r, "def f(int32(M,N) A) -> (O) { O(i) max=! A(i, j) }\n",
         {{"A", make(ScalarType::Int32, {3, 2}, {-5, -3, lowest, lowest, 7, lowest})}});
  EXPECT_EQ(out(r, "O").dtype, ScalarType::Int32);
  expect_values(out(r, "O"), {-3, lowest, 7});
}

TEST(Interpreter, MinReductionOverUInt8StartsAt255) {
  RUN_OK(r, "def f(uint8(M,N) A) -> (O) { O(i) min=! A(i, j) }\n",
         {{"A", make(ScalarType::UInt8, {2, 2}, {255, 255, 200, 7})}});
  expect_values(out(r, "O"), {255, 7});
}

TEST(Interpreter, ProductReductionStartsAtOne) {
  RUN_OK(r, "def f(float(M,N) A) -> (O) { O(i) *=! A(i, j) }\n",
         {{"A", f32({3, 3}, {2, 3, 4, 0.5, 0.5, 0.5, -1, 1, -1})}});
  expect_values(out(r, "O"), {24, 0.125, 1});
  RUN_OK(ri, "def f(int32(M,N) A) -> (O) { O(i) *=! A(i, j) }\n",
         {{"A", make(ScalarType::Int32, {2, 2}, {-3, 5, 1, 1})}});
  expect_values(out(ri, "O"), {-15, 1});
}

TEST(Interpreter, BangResetsASuppliedOutput) {
  // op=! starts from the identity whatever the caller passed; op=! without a reduction
  // index is '='.
  RUN_OK(r,
         "def f(float(M,N) A) -> (O, P) {\n"
         "    O(i) +=! A(i, j)\n"
         "    P(i, j) max=! A(i, j)\n"
         "}\n",
         {{"A", f32({2, 2}, {1, 2, -3, -4})}, {"O", f32({2}, {1000, 1000})}});
  expect_values(out(r, "O"), {3, -7});
  expect_values(out(r, "P"), {1, 2, -3, -4});
}

// ------------------------------------------------------------------------ statement order

TEST(Interpreter, LaterStatementsSeeEarlierResults) {
  RUN_OK(r,
         "def f(float(N) A, float(N) B) -> (O, P) {\n"
         "    O(i) = A(i)\n"
         "    O(i) = O(i) + B(i)\n"
         "    P(i) = A(i) * 2\n"
         "    P(i) = B(i)\n"
         "    P(i) += O(i)\n"
         "}\n",
         {{"A", f32({3}, {1, 2, 3})}, {"B", f32({3}, {10, 20, 30})}});
  expect_values(out(r, "O"), {11, 22, 33});
  expect_values(out(r, "P"), {21, 42, 63});
}

TEST(Interpreter, ShiftedOutputWithNonZeroMinimum) {
  // O(i) = I(i-1) has i in [1, N]; P reads it where 2i stays inside [1, N].
  RUN_OK(r,
         "def f(float(N) I) -> (O, P) {\n"
         "    O(i) = I(i - 1)\n"
         "    P(i) = O(2*i) + O(i)\n"
         "}\n",
         {{"I", f32({5}, {10, 20, 30, 40, 50})}});
  // O holds I at coordinates 1..5; P has i in [1, 2]: O(2)+O(1), O(4)+O(2).
  expect_values(out(r, "O"), {10, 20, 30, 40, 50});
  expect_values(out(r, "P"), {30, 60});
}

// -------------------------------------------------------------- data-dependent subscripts

TEST(Interpreter, EmbeddingGather) {
  const char* src = "def embed(float(V,D) E, int32(L) Ids) -> (O) { O(l, d) = E(Ids(l), d) }\n";
  Tensor E = f32({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  RUN_OK(r, src, {{"E", E}, {"Ids", make(ScalarType::Int32, {3}, {3, 0, 3})}});
  expect_values(out(r, "O"), {30, 31, 0, 1, 30, 31});

  auto high = run(src, {{"E", E}, {"Ids", make(ScalarType::Int32, {3}, {0, 7, 1})}});
  ASSERT_FALSE(high.ok());
  EXPECT_TRUE(has_substr(high.error(), "'E'"));
  EXPECT_TRUE(has_substr(high.error(), "7"));
  auto low = run(src, {{"E", E}, {"Ids", make(ScalarType::Int32, {1}, {-1})}});
  ASSERT_FALSE(low.ok());
  EXPECT_TRUE(has_substr(low.error(), "'E'"));
}

// -------------------------------------------------------------------------- other types

TEST(Interpreter, Float16) {
  Tensor A = make(ScalarType::Float16, {3}, {2048, 1, 0.5});
  Tensor B = make(ScalarType::Float16, {3}, {1, 3, 0.25});
  RUN_OK(r,
         "def f(float16(N) A, float16(N) B) -> (S, Q) {\n"
         "    S(i) = A(i) + B(i)\n"
         "    Q(i) = B(i) / A(i)\n"
         "}\n",
         {{"A", A}, {"B", B}});
  EXPECT_EQ(out(r, "S").dtype, ScalarType::Float16);
  // 2049 is halfway between the float16 neighbours 2048 and 2050: ties to even.
  // 1/2048 = 2^-11 is exact; 3/1 = 3; 0.25/0.5 = 0.5.
  expect_values(out(r, "S"), {2048, 4, 0.75});
  expect_values(out(r, "Q"), {1.0 / 2048, 3, 0.5});
  // 1/3 rounds to the nearest float16.
  RUN_OK(third, "def f(float16(N) A) -> (Q) { Q(i) = A(i) / 3 }\n", {{"A", make(ScalarType::Float16, {1}, {1})}});
  EXPECT_EQ(out(third, "Q").dtype, ScalarType::Float16);
  expect_values(out(third, "Q"), {0.333251953125});  // 0x3555
  // Mixed with float32 the result is float32.
  RUN_OK(mix, "def f(float16(N) A, float(N) B) -> (S) { S(i) = A(i) + B(i) }\n",
         {{"A", make(ScalarType::Float16, {1}, {2048})}, {"B", f32({1}, {1})}});
  EXPECT_EQ(out(mix, "S").dtype, ScalarType::Float32);
  expect_values(out(mix, "S"), {2049});
}

TEST(Interpreter, Float16ReductionRoundsOnce) {
  // The interpreter accumulates in double and rounds once per element: 2048 + 1 + 1 is 2050,
  // where float16 accumulation would stay at 2048.
  RUN_OK(r, "def f(float16(N) A) -> (S) { S +=! A(i) }\n", {{"A", make(ScalarType::Float16, {3}, {2048, 1, 1})}});
  EXPECT_EQ(out(r, "S").dtype, ScalarType::Float16);
  expect_values(out(r, "S"), {2050});
  // 2048 + 1 + 2^-14 = 2049.00006...: just above the halfway point 2049, so the one
  // correct rounding is up, to 2050. Rounding through float32 first would land on 2049
  // exactly and then tie to even, 2048.
  RUN_OK(r2, "def f(float16(N) A) -> (S) { S +=! A(i) }\n",
         {{"A", make(ScalarType::Float16, {3}, {2048, 1, std::ldexp(1.0, -14)})}});
  expect_values(out(r2, "S"), {2050});
}

TEST(Interpreter, BoolFromComparisonsAndTernary) {
  RUN_OK(r,
         "def f(float(N) A, float(N) B) -> (G, Mx, Nz, Eq) {\n"
         "    G(i) = A(i) > B(i)\n"
         "    Mx(i) = G(i) ? A(i) : B(i)\n"
         "    Nz(i) = !G(i) && A(i) != 0\n"
         "    Eq(i) = G(i) == (A(i) >= B(i))\n"
         "}\n",
         {{"A", f32({4}, {1, 5, 0, 2})}, {"B", f32({4}, {2, 3, 0, 2})}});
  EXPECT_EQ(out(r, "G").dtype, ScalarType::Bool);
  expect_values(out(r, "G"), {0, 1, 0, 0});
  EXPECT_EQ(out(r, "Mx").dtype, ScalarType::Float32);
  expect_values(out(r, "Mx"), {2, 5, 0, 2});
  EXPECT_EQ(out(r, "Nz").dtype, ScalarType::Bool);
  expect_values(out(r, "Nz"), {1, 0, 0, 1});
  expect_values(out(r, "Eq"), {1, 1, 0, 0});
  // Bool inputs.
  RUN_OK(b, "def g(bool(N) P, float(N) X) -> (O) { O(i) = P(i) || X(i) < 0 ? 1.0 : 0.0 }\n",
         {{"P", make(ScalarType::Bool, {3}, {1, 0, 0})}, {"X", f32({3}, {5, -1, 1})}});
  expect_values(out(b, "O"), {1, 1, 0});
}

TEST(Interpreter, ZeroDimensionalTensors) {
  RUN_OK(r, "def total(float(N) A) -> (S) { S +=! A(i) }\n", {{"A", f32({4}, {1, 2, 3, 4.5})}});
  const Tensor& S = out(r, "S");
  EXPECT_TRUE(S.shape.empty());
  EXPECT_EQ(S.numel(), 1);
  expect_values(S, {10.5});
  // A 0-d input, and the spellings S and S() of a 0-d result.
  RUN_OK(sc,
         "def scale(float Alpha, float(N) A) -> (O, T, U) {\n"
         "    O(i) = Alpha * A(i)\n"
         "    T() +=! A(i)\n"
         "    U = T * Alpha\n"
         "}\n",
         {{"Alpha", f32({}, {3})}, {"A", f32({2}, {1, -2})}});
  expect_values(out(sc, "O"), {3, -6});
  EXPECT_TRUE(out(sc, "T").shape.empty());
  expect_values(out(sc, "T"), {-1});
  expect_values(out(sc, "U"), {-3});
}

TEST(Interpreter, Builtins) {
  std::vector<double> x = {-2, -0.5, 0, 0.75, 3};
  std::vector<double> y = {1, 2, -1, 0.5, -4};
  std::vector<double> z = {0.25, -1, 3, 2, 1};
  RUN_OK(r,
         "def f(float(N) X, float(N) Y, float(N) Z) -> (E, Relu, Mx, Fma, Sig) {\n"
         "    E(i) = exp(X(i))\n"
         "    Relu(i) = fmax(X(i), 0)\n"
         "    Mx(i) = fmax(X(i), Y(i))\n"
         "    Fma(i) = fma(X(i), Y(i), Z(i))\n"
         "    Sig(i) = 1 / (1 + exp(-X(i)))\n"
         "}\n",
         {{"X", f32({5}, x)}, {"Y", f32({5}, y)}, {"Z", f32({5}, z)}});
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_FLOAT_EQ(float(out(r, "E").get_as_double(int64_t(i))), float(std::exp(x[i]))) << i;
    EXPECT_EQ(out(r, "Relu").get_as_double(int64_t(i)), std::fmax(x[i], 0.0)) << i;
    EXPECT_EQ(out(r, "Mx").get_as_double(int64_t(i)), std::fmax(x[i], y[i])) << i;
    EXPECT_EQ(out(r, "Fma").get_as_double(int64_t(i)), x[i] * y[i] + z[i]) << i;  // exact here
    EXPECT_FLOAT_EQ(float(out(r, "Sig").get_as_double(int64_t(i))), float(1 / (1 + std::exp(-x[i])))) << i;
  }
  // An integer argument makes a float32 result.
  RUN_OK(ri, "def g(int32(N) K) -> (O) { O(i) = sqrt(K(i)) }\n", {{"K", make(ScalarType::Int32, {2}, {4, 9})}});
  EXPECT_EQ(out(ri, "O").dtype, ScalarType::Float32);
  expect_values(out(ri, "O"), {2, 3});
}

TEST(Interpreter, MinMaxOperatorsAndFloat64) {
  RUN_OK(r,
         "def f(double(N) A, double(N) B) -> (Lo, Hi, S) {\n"
         "    Lo(i) = min(A(i), B(i))\n"
         "    Hi(i) = max(A(i), B(i))\n"
         "    S(i) = A(i) + B(i)\n"
         "}\n",
         {{"A", make(ScalarType::Float64, {2}, {0.1, -3})}, {"B", make(ScalarType::Float64, {2}, {0.2, 7})}});
  EXPECT_EQ(out(r, "S").dtype, ScalarType::Float64);
  expect_values(out(r, "Lo"), {0.1, -3});
  expect_values(out(r, "Hi"), {0.2, 7});
  expect_values(out(r, "S"), {0.1 + 0.2, 4});  // rounded as double, not as float
}

TEST(Interpreter, RefusesBadInputs) {
  const char* src = "def f(float(N) A, float(N) B) -> (O) { O(i) = A(i) + B(i) }\n";
  // A missing input leaves its size unbound or is reported by the interpreter.
  auto missing = run(src, {{"A", f32({2}, {1, 2})}});
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(has_substr(missing.error(), "B"));
  auto dtype = run(src, {{"A", f32({2}, {1, 2})}, {"B", make(ScalarType::Int32, {2}, {1, 2})}});
  ASSERT_FALSE(dtype.ok());
  EXPECT_TRUE(has_substr(dtype.error(), "'B'"));
  // A def with errors is never run.
  auto file = check_source("bad.tc", "def f(float(N) A) -> (O) { O(i) = A(i) + Q(i) }\n");
  ASSERT_TRUE(file->has_errors());
  ASSERT_EQ(file->defs.size(), 1u);
  DefShapes shapes;
  auto r = interpret(file->defs[0], shapes, {});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(has_substr(r.error(), "errors"));
}

// ---------------------------------------------------------------------------- random_inputs

struct Prepared {
  std::unique_ptr<CheckedFile> file;
  const SemaDef* def = nullptr;
  DefShapes shapes;
};

Prepared prepare(const std::string& src, const SizeMap& sizes) {
  Prepared p;
  p.file = check_source("test.tc", src);
  EXPECT_FALSE(p.file->has_errors()) << diagnostics_format(p.file->file, p.file->diagnostics);
  auto d = select_entry(*p.file, "");
  EXPECT_TRUE(d.ok());
  if (!d.ok()) return p;
  p.def = *d;
  auto bound = sizes_bind(*p.def, sizes, {});
  EXPECT_TRUE(bound.ok()) << (bound.ok() ? "" : bound.error());
  if (!bound.ok()) return p;
  auto sh = shapes_evaluate(*p.def, *bound);
  EXPECT_TRUE(sh.ok()) << (sh.ok() ? "" : sh.error());
  if (sh.ok()) p.shapes = std::move(*sh);
  return p;
}

TEST(RandomInputs, SameSeedSameData) {
  Prepared p = prepare("def f(float(M,K) A, int32(K) B, float16(M) H) -> (O) { O(m) +=! A(m, k) * B(k) + H(m) }\n",
                       {{"M", 5}, {"K", 7}});
  ASSERT_TRUE(p.def);
  auto a = random_inputs(*p.def, p.shapes, 42);
  auto b = random_inputs(*p.def, p.shapes, 42);
  auto c = random_inputs(*p.def, p.shapes, 43);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  ASSERT_EQ(a->size(), 3u);
  for (const char* name : {"A", "B", "H"}) {
    EXPECT_EQ(a->at(name).dtype, b->at(name).dtype) << name;
    EXPECT_EQ(a->at(name).shape, b->at(name).shape) << name;
    EXPECT_EQ(a->at(name).data, b->at(name).data) << name;
  }
  EXPECT_EQ(a->at("A").shape, (Shape{5, 7}));
  EXPECT_EQ(a->at("B").dtype, ScalarType::Int32);
  EXPECT_EQ(a->at("H").dtype, ScalarType::Float16);
  EXPECT_NE(a->at("A").data, c->at("A").data);
  // Floats lie in [-1, 1) (1 itself only by rounding to float32).
  for (double v : values(a->at("A"))) {
    EXPECT_GE(v, -1.0);
    EXPECT_LE(v, 1.0);
  }
  // Tensors already supplied are left out.
  auto partial = random_inputs(*p.def, p.shapes, 42, {{"A", a->at("A")}});
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ(partial->count("A"), 0u);
  EXPECT_EQ(partial->count("B"), 1u);
  // And the generated inputs run.
  auto outputs = interpret(*p.def, p.shapes, *a);
  ASSERT_TRUE(outputs.ok()) << outputs.error();
}

TEST(RandomInputs, PositiveWhereNaNWouldFollow) {
  Prepared p = prepare("def f(float(N) A, float(N) B) -> (O) { O(i) = log(A(i)) / B(i) }\n", {{"N", 64}});
  ASSERT_TRUE(p.def);
  auto in = random_inputs(*p.def, p.shapes, 7);
  ASSERT_TRUE(in.ok()) << in.error();
  for (const char* name : {"A", "B"})
    for (double v : values(in->at(name))) {
      EXPECT_GE(v, 0.5) << name;
      EXPECT_LE(v, 1.5) << name;
    }
}

TEST(RandomInputs, IntegerSubscriptsStayInBounds) {
  Prepared p = prepare("def embed(float(V,D) E, int32(L) Ids) -> (O) { O(l, d) = E(Ids(l), d) }\n",
                       {{"V", 5}, {"D", 3}, {"L", 200}});
  ASSERT_TRUE(p.def);
  for (uint64_t seed : {1u, 2u, 3u}) {
    auto in = random_inputs(*p.def, p.shapes, seed);
    ASSERT_TRUE(in.ok()) << in.error();
    std::vector<bool> seen(5, false);
    for (double v : values(in->at("Ids"))) {
      ASSERT_GE(v, 0);
      ASSERT_LE(v, 4);
      seen[size_t(v)] = true;
    }
    for (size_t k = 0; k < seen.size(); ++k) EXPECT_TRUE(seen[k]) << "value " << k << " never drawn (seed " << seed << ")";
    auto outputs = interpret(*p.def, p.shapes, *in);
    ASSERT_TRUE(outputs.ok()) << outputs.error();
  }

  // Through an int64 -> int32 cast, into a tensor that starts at 1, and into two tensors
  // of different sizes at once.
  Prepared q = prepare("def g(float(N) A, float(M) B, int64(L) Ids) -> (O, P) {\n"
                       "    O(i) = A(i - 1)\n"
                       "    P(l) = O(int32(Ids(l))) + B(Ids(l))\n"
                       "}\n",
                       {{"N", 6}, {"M", 4}, {"L", 100}});
  ASSERT_TRUE(q.def);
  auto in = random_inputs(*q.def, q.shapes, 9);
  ASSERT_TRUE(in.ok()) << in.error();
  // O spans [1, 6] and B spans [0, 3]: only [1, 3] is inside both.
  for (double v : values(in->at("Ids"))) {
    ASSERT_GE(v, 1);
    ASSERT_LE(v, 3);
  }
  auto outputs = interpret(*q.def, q.shapes, *in);
  ASSERT_TRUE(outputs.ok()) << outputs.error();
}

TEST(RandomInputs, SubscriptsThroughAnOffsetOrAProductStayInBounds) {
  for (const char* body : {"O(l, d) = E(Ids(l) + 1, d)", "O(l, d) = E(Ids(l) * 2, d)", "O(l, d) = E(3 - Ids(l), d)",
                           "O(l, d) +=! E(Ids(l) + j, d) where j in 0:3", "O(l, d) = E(2 * Ids(l) + 1, d)"}) {
    std::string src = std::string("def emb(float(V,D) E, int32(L) Ids) -> (O) { ") + body + " }\n";
    Prepared p = prepare(src, {{"V", 50}, {"D", 4}, {"L", 300}});
    ASSERT_TRUE(p.def) << body;
    auto in = random_inputs(*p.def, p.shapes, 4);
    ASSERT_TRUE(in.ok()) << body << ": " << in.error();
    auto outputs = interpret(*p.def, p.shapes, *in);
    EXPECT_TRUE(outputs.ok()) << body << ": " << outputs.error();
    std::set<double> distinct;
    for (double v : values(in->at("Ids"))) distinct.insert(v);
    EXPECT_GT(distinct.size(), 10u) << body;  // the whole valid range is drawn, not one value
  }
  // Two reads combined cannot be kept in range by drawing: said, not left to fail later.
  Prepared q = prepare("def two(float(V) E, int32(L) I, int32(L) J) -> (O) { O(l) = E(I(l) + J(l)) }\n",
                       {{"V", 10}, {"L", 8}});
  ASSERT_TRUE(q.def);
  auto in = random_inputs(*q.def, q.shapes, 1);
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.error_kind(), ErrorKind::Sizes);
  EXPECT_NE(in.error().find("--input"), std::string::npos) << in.error();
}

TEST(Compare, NaNPassesOnlyWhereTheOracleHasNaN) {
  Tensor want = f32({4}, {1, kNaN, 3, kNaN});
  EXPECT_TRUE(compare_tensors("O", f32({4}, {1, kNaN, 3, kNaN}), want).ok);
  TensorComparison one_sided = compare_tensors("O", f32({4}, {1, kNaN, 3, 4}), want);
  EXPECT_FALSE(one_sided.ok);
  EXPECT_NE(one_sided.problem.find("NaN on one side only"), std::string::npos) << one_sided.problem;
  EXPECT_FALSE(compare_tensors("O", f32({4}, {kNaN, kNaN, 3, kNaN}), want).ok);
}

}  // namespace
}  // namespace tcs
