// Math builtins computed inline in float and double (codegen/LlvmMath.cpp) so loops of
// them vectorise: each one against the C library over the whole range of its type,
// special values included, in a loop long enough to be vectorised; float16 computed in
// float; and a row's last elements and short rows, which run as masked vectors rather
// than one exp at a time or gathered across rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <tuple>

#include "Compiler.h"
#include "codegen/CpuKernel.h"
#include "common/AsInterpreted.h"
#include "lang/Frontend.h"
#include "runtime/Compare.h"
#include "runtime/Interpreter.h"
#include "runtime/RandomInputs.h"
#include "support/HostCpu.h"

namespace tcs {
namespace {

// The builtins of one argument computed inline, each with its C library reference and
// its bound against it: relative in float, in units of the last place in double (a
// negative bound: float only).
struct OneArgument {
  const char* builtin;
  double (*ref)(double);
  double float_rel, double_ulps;
};
const OneArgument kOneArgument[] = {
    {"exp", [](double v) { return std::exp(v); }, 4e-7, 2},
    {"exp2", [](double v) { return std::exp2(v); }, 4e-7, 2},
    {"exp10", [](double v) { return std::pow(10.0, v); }, 4e-7, 4},
    {"expm1", [](double v) { return std::expm1(v); }, 4e-7, 4},
    {"log", [](double v) { return std::log(v); }, 4e-7, 3},
    {"log2", [](double v) { return std::log2(v); }, 4e-7, 4},
    {"log10", [](double v) { return std::log10(v); }, 4e-7, 4},
    {"log1p", [](double v) { return std::log1p(v); }, 4e-7, 4},
    {"tanh", [](double v) { return std::tanh(v); }, 2e-6, 4},
    {"erf", [](double v) { return std::erf(v); }, 2e-6, -1},
    {"rsqrt", [](double v) { return 1.0 / std::sqrt(v); }, 2e-7, 1},
    {"sinh", [](double v) { return std::sinh(v); }, 4e-7, 4},
    {"cosh", [](double v) { return std::cosh(v); }, 4e-7, 4},
    {"asinh", [](double v) { return std::asinh(v); }, 4e-7, 5},
    {"acosh", [](double v) { return std::acosh(v); }, 4e-7, 5},
    {"atanh", [](double v) { return std::atanh(v); }, 4e-7, 5},
    {"atan", [](double v) { return std::atan(v); }, 4e-7, 4},
    {"asin", [](double v) { return std::asin(v); }, 4e-7, 4},
    {"acos", [](double v) { return std::acos(v); }, 4e-7, 4},
    // glibc's cbrt is itself some ulp off; long double's is the reference here.
    {"cbrt", [](double v) { return double(std::cbrt((long double)v)); }, 4e-7, 2},
    {"rcbrt", [](double v) { return double(1.0L / std::cbrt((long double)v)); }, 4e-7, 2},
};

// The output of a builtin in math_kernel: its name in capitals.
std::string output_of(const char* builtin) {
  std::string o(builtin);
  for (char& ch : o) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  return o;
}

// Every builtin of kOneArgument that `type` computes, each applied to X, and `extra`.
std::string math_kernel(const std::string& type, const std::string& extra_output = "", const std::string& extra = "") {
  bool dbl = type == "double";
  std::string outs, body;
  for (const OneArgument& f : kOneArgument) {
    if (dbl && f.double_ulps < 0) continue;
    outs += (outs.empty() ? "" : ", ") + output_of(f.builtin);
    body += "    " + output_of(f.builtin) + "(i) = " + f.builtin + "(X(i))\n";
  }
  if (!extra_output.empty()) outs += ", " + extra_output, body += "    " + extra + "\n";
  return "def math(" + type + "(N) X) -> (" + outs + ") {\n" + body + "}";
}

// Magnitudes from subnormal to huge, both signs, and the special values.
std::vector<float> arguments() {
  std::vector<float> x = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, 1e-40f, 1.17549435e-38f, 88.7f, 88.73f,
                          -87.3f, -103.9f, -104.5f, 127.9f, 128.1f, -149.5f, -150.5f, 0.625f, -0.625f, 0.5f, 4.0f,
                          0x1.344134p+5f};  // exp10's last finite float, which x ln10 rounded up had overflowed
  for (double m = -40; m <= 38; m += 0.01) {
    x.push_back(float(std::pow(10.0, m)));
    x.push_back(float(-std::pow(10.0, m)));
  }
  for (double v = -12; v <= 12; v += 0.001) x.push_back(float(v));
  for (int k = -149; k <= 127; ++k) x.push_back(std::ldexp(1.0f, k));
  for (int k = 0; k <= 10; ++k) x.push_back(float(std::pow(10.0, k)));
  return x;
}

// Within `rel` of the double result rounded to float (or equal as a special value).
::testing::AssertionResult close(const char* what, float x, float got, double want, double rel) {
  float w = float(want);
  if (std::isnan(w) ? std::isnan(got) : got == w) return ::testing::AssertionSuccess();
  if (std::isfinite(w) && std::isfinite(got)) {
    double scale = std::max(std::fabs(double(w)), 1.1754943508222875e-38);  // absolute below FLT_MIN
    if (std::fabs(double(got) - double(w)) <= rel * scale) return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << what << "(" << x << ") = " << got << ", want " << w;
}

using testing_support::expect_as_interpreted;

// The first def of `source` at N = n under the default preset, with its LLVM IR. The
// checked file stays alive with the kernel, which points into it.
struct DefaultBuild {
  std::shared_ptr<const CheckedFile> checked;
  std::optional<CompileResult> compiled;  // empty after a failure, reported
};

DefaultBuild build_default(const char* source, int64_t n) {
  DefaultBuild b{check_source("k.tc", source), std::nullopt};
  if (b.checked->has_errors()) {
    ADD_FAILURE() << "the source has errors";
    return b;
  }
  const SemaDef& def = b.checked->defs.at(0);
  auto shapes = shapes_evaluate(def, {{"N", n}});
  if (!shapes) {
    ADD_FAILURE() << shapes.error();
    return b;
  }
  auto options = mapping_preset("default", def);
  auto compiled = compile_kernel(KernelSetup{b.checked, &def, {}, *shapes}, *options, CodegenChoice{"cpu", {"llvm"}, true});
  if (compiled) b.compiled = std::move(*compiled);
  else ADD_FAILURE() << compiled.error();
  return b;
}

// No call per element: the IR calls none of `calls`, and it holds vectors (`lanes`, such
// as " x float> ").
void expect_vectorised(const CompileResult& compiled, std::initializer_list<const char*> calls, const char* lanes) {
  const std::string& ir = compiled.text("llvm").text;
  for (const char* fn : calls) EXPECT_EQ(ir.find(fn), std::string::npos) << fn << " is called";
  EXPECT_NE(ir.find(lanes), std::string::npos) << "not vectorised";
}

// A compiled kernel run on two inputs of `type` (float32 or float64) holding these pairs:
// `first` takes each pair's first value, `second` its second.
Expected<TensorMap> run_on_pairs(const CompileResult& compiled, ScalarType type,
                                 const std::vector<std::pair<double, double>>& pairs, const char* first, const char* second) {
  Tensor a = *Tensor::zeros(type, {int64_t(pairs.size())});
  Tensor b = *Tensor::zeros(type, {int64_t(pairs.size())});
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (type == ScalarType::Float64) a.as<double>()[i] = pairs[i].first, b.as<double>()[i] = pairs[i].second;
    else a.as<float>()[i] = float(pairs[i].first), b.as<float>()[i] = float(pairs[i].second);
  }
  return compiled.kernel->run({{first, a}, {second, b}});
}

TEST(FloatMath, BuiltinsMatchTheCLibraryOverTheFloatRange) {
  std::vector<float> x = arguments();
  DefaultBuild b = build_default(math_kernel("float").c_str(), int64_t(x.size()));
  ASSERT_TRUE(b.compiled);
  expect_vectorised(*b.compiled, {"@expf", "@logf", "@tanhf", "@erff", "@exp2f", "@log1pf", "@expm1f", "@sinhf", "@atanf",
                                  "@tcs_builtin_"},
                    " x float> ");

  Tensor in = *Tensor::zeros(ScalarType::Float32, {int64_t(x.size())});
  std::copy(x.begin(), x.end(), in.as<float>());
  auto out = b.compiled->kernel->run({{"X", in}});
  ASSERT_TRUE(out) << out.error();
  for (const OneArgument& f : kOneArgument) {
    const float* got = out->at(output_of(f.builtin)).as<float>();
    int failures = 0;
    for (size_t i = 0; i < x.size() && failures < 5; ++i) {
      auto r = close(f.builtin, x[i], got[i], f.ref(double(x[i])), f.float_rel);
      if (!r) ++failures;
      EXPECT_TRUE(r);
    }
  }
  // log2 of a power of two and log10 of a power of ten are exact, as in C.
  const float* l2 = out->at("LOG2").as<float>();
  const float* l10 = out->at("LOG10").as<float>();
  for (size_t k = 0; k < x.size(); ++k) {
    if (x[k] > 0 && std::isfinite(x[k]) && std::exp2(std::round(std::log2(x[k]))) == x[k]) {
      EXPECT_EQ(l2[k], std::round(std::log2(x[k]))) << "log2(" << x[k] << ")";
    }
  }
  for (int k = 0; k <= 10; ++k) {
    auto at = std::find(x.begin(), x.end(), float(std::pow(10.0, k)));
    ASSERT_NE(at, x.end());
    EXPECT_EQ(l10[at - x.begin()], float(k)) << "log10(1e" << k << ")";
  }
}

TEST(FloatMath, PowMatchesTheCLibraryWithItsSpecialCases) {
  // pow over 1024^2 floats had called the C library per element: 4.5 ms on one thread.
  // Every pair of these exponents and bases, the special ones included.
  std::vector<float> xs = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 2.0f, -2.0f, 0.5f, -0.5f,
                           1e-45f, 3.4e38f, -3.4e38f, 1.0000001f, 0.9999999f, 7.25f, -7.25f, 1e-20f, 1e20f};
  std::vector<float> ys = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 2.0f, -2.0f, 3.0f, -3.0f, 0.5f,
                           -0.5f, 1.5f, 1e9f, 1e9f + 64, 16777215.0f, 127.9f, -149.5f, 0.3333333f, 88.0f, -0.1f};
  std::vector<std::pair<double, double>> pairs;
  for (float x : xs)
    for (float y : ys) pairs.emplace_back(x, y);
  for (int i = 0; i < 4000; ++i)  // positive bases over the float range, moderate powers
    pairs.emplace_back(float(std::pow(10.0, -37 + 74.0 * i / 4000)), float(-6 + 12.0 * ((i * 7919) % 4000) / 4000));
  DefaultBuild b = build_default(R"(
def p(float(N) X, float(N) Y) -> (P) {
    P(i) = pow(X(i), Y(i))
})", int64_t(pairs.size()));
  ASSERT_TRUE(b.compiled);
  expect_vectorised(*b.compiled, {"@powf", "@tcs_builtin_pow"}, " x double> ");
  auto out = run_on_pairs(*b.compiled, ScalarType::Float32, pairs, "X", "Y");
  ASSERT_TRUE(out) << out.error();
  const float* got = out->at("P").as<float>();
  int failures = 0;
  for (size_t i = 0; i < pairs.size() && failures < 5; ++i) {
    float a = float(pairs[i].first), b = float(pairs[i].second);
    double want = std::pow(double(a), double(b));
    auto r = close("pow", a, got[i], want, 1.2e-7);
    if (r && float(want) == 0.0f && std::signbit(got[i]) != std::signbit(want))
      r = ::testing::AssertionFailure() << "pow(" << a << ", " << b << ") = " << got[i] << ", want " << want;
    if (!r) ++failures;
    EXPECT_TRUE(r) << " with y = " << b;
  }
}

// Magnitudes from the least subnormal to the largest double, both signs, the special
// values, each end of exp's and exp2's range, and dense steps where tanh changes method.
std::vector<double> double_arguments() {
  std::vector<double> x = {0.0, -0.0, INFINITY, -INFINITY, NAN, 4.9406564584124654e-324, 1e-310, 2.2250738585072014e-308,
                           709.78, 709.79, -708.4, -745.1, -745.2, -746.5, 1023.9, 1024.1, -1074.0, -1074.6, -1075.5,
                           0.3, -0.3, 1.0, 1.0000000000000002, 0.9999999999999999,
                           // where atanh and acosh err most (5 ulp from the C library)
                           0x1.fe6f8b3fbcce4p-7, 0x1.f43663f7b429cp-4, 0x1.01f6ba95e2f89p+0};
  for (double m = -323; m <= 308; m += 0.01) {
    x.push_back(std::pow(10.0, m));
    x.push_back(-std::pow(10.0, m));
  }
  for (double v = -40; v <= 40; v += 0.0007) x.push_back(v);
  for (int k = -1074; k <= 1023; ++k) x.push_back(std::ldexp(1.0, k));
  for (int k = 0; k <= 22; ++k) x.push_back(std::pow(10.0, k));  // exact up to 1e22
  return x;
}

// The error in units of the last place of the C library's result (at least the least
// normal's, so that a subnormal result counts its absolute error); 0 for an equal
// special value, infinity for a special value on one side only.
double ulps(double got, double want) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got) ? 0 : INFINITY;
  if (got == want) return 0;
  if (!std::isfinite(want) || !std::isfinite(got)) return INFINITY;
  double unit = std::ldexp(1.0, std::max(std::ilogb(want), -1022) - 52);
  return std::fabs(got - want) / unit;
}

TEST(DoubleMath, BuiltinsMatchTheCLibraryOverTheDoubleRange) {
  // exp over 1024^2 doubles had called the reference per element: 6.6 ms on one thread,
  // 0.84 ms vectorised; sqrt 4.9 ms against 0.58.
  std::vector<double> x = double_arguments();
  // Beside them, the builtins double takes from an LLVM intrinsic, exact there.
  std::string kernel = math_kernel("double", "EXACT", "EXACT(i) = sqrt(fabs(X(i))) + floor(X(i)) + fma(X(i), X(i), 1.0) + fmax(X(i), 0.5)");
  DefaultBuild b = build_default(kernel.c_str(), int64_t(x.size()));
  ASSERT_TRUE(b.compiled);
  expect_vectorised(*b.compiled, {"@exp(", "@log(", "@tanh(", "@exp2(", "@sqrt(", "@floor(", "@fma(", "@log1p(", "@expm1(", "@tcs_builtin_",
                                  "@llvm.exp.", "@llvm.exp2.", "@llvm.log.", "@llvm.log2.", "@llvm.log10."},
                    " x double> ");

  Tensor in = *Tensor::zeros(ScalarType::Float64, {int64_t(x.size())});
  std::copy(x.begin(), x.end(), in.as<double>());
  auto out = b.compiled->kernel->run({{"X", in}});
  ASSERT_TRUE(out) << out.error();
  auto exact = [](double v) { return std::sqrt(std::fabs(v)) + std::floor(v) + std::fma(v, v, 1.0) + std::fmax(v, 0.5); };
  std::vector<OneArgument> all(std::begin(kOneArgument), std::end(kOneArgument));
  all.push_back({"exact", exact, 0, 0});
  for (const OneArgument& f : all) {
    if (f.double_ulps < 0) continue;
    const double* got = out->at(output_of(f.builtin)).as<double>();
    double worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < x.size(); ++i)
      if (double u = ulps(got[i], f.ref(x[i])); u > worst) worst = u, at = i;
    EXPECT_LE(worst, f.double_ulps) << f.builtin << "(" << x[at] << ") = " << got[at] << ", want " << f.ref(x[at]) << ": "
                                    << worst << " ulp";
  }
  // log2 of a power of two and log10 of a power of ten are exact, as in C (floor(log2(x))
  // must not be one less).
  const double* l2 = out->at("LOG2").as<double>();
  const double* l10 = out->at("LOG10").as<double>();
  for (size_t k = 0; k < x.size(); ++k) {
    if (x[k] > 0 && std::isfinite(x[k]) && std::ldexp(1.0, std::ilogb(x[k])) == x[k]) {
      EXPECT_EQ(l2[k], double(std::ilogb(x[k]))) << "log2(" << x[k] << ")";
    }
  }
  for (int k = 0; k <= 22; ++k) {
    auto at = std::find(x.begin(), x.end(), std::pow(10.0, k));
    ASSERT_NE(at, x.end());
    EXPECT_EQ(l10[at - x.begin()], double(k)) << "log10(1e" << k << ")";
  }
}

TEST(DoubleMath, PowMatchesTheCLibraryWithItsSpecialCases) {
  // Double pow called the reference per element. Every pair of the special values, and
  // bases and exponents whose results span the double range (y log x up to +-745, where
  // log's error is magnified most, and mantissas near sqrt(2), where log's t is largest:
  // 50 ulp there while log's t^3 term was one double; 2 seen now), against the C library.
  std::vector<double> special = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 1.5,
                                 -7.25, 1e-310, 1.7e308, 9007199254740993.0, 1.0000000000000002, 0.9999999999999999};
  std::vector<std::pair<double, double>> pairs;
  for (double a : special)
    for (double b : special) pairs.emplace_back(a, b);
  for (int i = 0; i < 6000; ++i) {
    double x = std::pow(10.0, -300.0 + 600.0 * ((i * 7919) % 6000) / 6000.0);
    double target = -740.0 + 1450.0 * i / 6000.0;  // y log x
    pairs.emplace_back(x, target / std::log(x));
  }
  for (int i = 0; i < 2000; ++i)  // bases near 1, large exponents
    pairs.emplace_back(1.0 + (i - 1000) * 1e-6, 700.0 / std::log1p((i - 1000.5) * 1e-6));
  for (int i = 0; i < 4000; ++i) {  // mantissas near sqrt(2) and sqrt(1/2), where log's t is largest
    double x = std::ldexp((i % 2 ? 1.4142135623730951 : 0.7071067811865476) * (1.0 + (i - 2000) * 1.5e-4), (i % 7) - 3);
    if (x == 1.0) continue;
    pairs.emplace_back(x, (i % 3 ? 700.0 : -740.0) / std::log(x) * (1.0 - (i % 11) * 1e-3));
  }
  for (double yk : {398.0, -398.0, 1024.0, -1024.0, 1023.0, 2049.0})  // integer exponents
    for (double x : {1.5, 0x1.66ee171c219dfp-1, 0x1.68e142539e4d3p+0, 2.0, 0.75}) pairs.emplace_back(x, yk);
  // where a reviewer found the overflow decided wrongly (one part of log too few)
  pairs.emplace_back(0x1.4c50d320155cap+0, 0x1.540dd6ffdb075p+11);
  pairs.emplace_back(0x1.8a20dfa66c454p-4, -0x1.2f2f4ee51ae1ap+8);
  pairs.emplace_back(0x1.68e142539e4d3p+0, 0x1.021e8ec6ad22p+11);
  pairs.emplace_back(0x1.66e943a14750bp+0, 0x1.02f8c05118d4ep+11);
  DefaultBuild b = build_default(R"(
def p(double(N) X, double(N) Y) -> (P) {
    P(i) = pow(X(i), Y(i))
})", int64_t(pairs.size()));
  ASSERT_TRUE(b.compiled);
  expect_vectorised(*b.compiled, {"@pow(", "@tcs_builtin_pow"}, " x double> ");
  auto out = run_on_pairs(*b.compiled, ScalarType::Float64, pairs, "X", "Y");
  ASSERT_TRUE(out) << out.error();
  const double* got = out->at("P").as<double>();
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    double want = std::pow(pairs[i].first, pairs[i].second);
    double u = ulps(got[i], want);
    if (want == 0 && got[i] == 0 && std::signbit(got[i]) != std::signbit(want)) u = INFINITY;
    if (u > worst) worst = u, at = i;
  }
  EXPECT_LE(worst, 3.0) << "pow(" << pairs[at].first << ", " << pairs[at].second << ") = " << got[at] << ", want "
                        << std::pow(pairs[at].first, pairs[at].second) << ": " << worst << " ulp";
}

TEST(Trigonometry, SinCosAndTanMatchTheCLibraryNearAndFar) {
  // sin, cos and tan called the C library per element (sinf over 1024^2 floats: 4.8 ms
  // on one thread; 1.6 ms now). Below 2^30 they are computed inline in double; beyond,
  // a vector's far lanes call the reference, so every argument is in range here: large
  // ones, the closest doubles to multiples of pi/2 near 2^30, and the special values.
  std::vector<double> x = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-300, -1e-310, 0x1.921fb54442d18p+0,
                           0x1.921fb54442d18p+1, 3.0 * 0x1.921fb54442d18p+0, 1073741823.9, 1073741824.0, 1e10,
                           -1e15, 1e22, 1.7e308, 6381956970095103.0 * 0x1p797, 355.0, 103993.0, 1.5707963267948966e9};
  for (double v = -40; v <= 40; v += 0.0013) x.push_back(v);
  for (double m = -20; m <= 12; m += 0.01) {
    x.push_back(std::pow(10.0, m));
    x.push_back(-std::pow(10.0, m));
  }
  for (const auto& [type, name, max_ulps] : {std::tuple{"double", "sin", 1.0}, std::tuple{"double", "cos", 1.0},
                                            std::tuple{"double", "tan", 3.0}, std::tuple{"float", "sin", 0.0},
                                            std::tuple{"float", "cos", 0.0}, std::tuple{"float", "tan", 0.0}}) {
    std::string source = std::string("def t(") + type + "(N) X) -> (Y) {\n    Y(i) = " + name + "(X(i))\n}";
    DefaultBuild b = build_default(source.c_str(), int64_t(x.size()));
    ASSERT_TRUE(b.compiled);
    std::string scalar_libm = std::string("@") + name + (std::string(type) == "float" ? "f(" : "(");
    expect_vectorised(*b.compiled, {scalar_libm.c_str(), "@llvm.sin.", "@llvm.cos.", "@llvm.tan."}, " x double> ");
    bool dbl = std::string(type) == "double";
    Tensor in = *Tensor::zeros(dbl ? ScalarType::Float64 : ScalarType::Float32, {int64_t(x.size())});
    for (size_t i = 0; i < x.size(); ++i)
      if (dbl) in.as<double>()[i] = x[i];
      else in.as<float>()[i] = float(x[i]);
    auto out = b.compiled->kernel->run({{"X", in}});
    ASSERT_TRUE(out) << out.error();
    double (*ref)(double) = std::string(name) == "sin" ? static_cast<double (*)(double)>(std::sin)
                            : std::string(name) == "cos" ? static_cast<double (*)(double)>(std::cos)
                                                         : static_cast<double (*)(double)>(std::tan);
    double worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      // float: the double result rounded to float, against the double reference of the
      // float argument rounded the same way (0 ulp but where the two doubles round apart).
      double arg = dbl ? x[i] : double(float(x[i]));
      double want = dbl ? ref(arg) : double(float(ref(arg)));
      double got = dbl ? out->at("Y").as<double>()[i] : double(out->at("Y").as<float>()[i]);
      double u = ulps(got, want);
      if (!dbl && u > 0) u = std::fabs(got - want) <= std::ldexp(std::fabs(want), -23) ? 0 : u;  // one float ulp
      if (u > worst) worst = u, at = i;
      if (want == 0 && got == 0) {
        EXPECT_EQ(std::signbit(got), std::signbit(want)) << name << "(" << arg << ")";
      }
    }
    EXPECT_LE(worst, max_ulps) << type << " " << name << "(" << x[at] << "): " << worst << " ulp";
  }
}

TEST(HalfConversions, DoubleToHalfRoundsOnceAndStaysInVectors) {
  // x86 converted between double and half by a call per element; through float it is
  // vectors, and the float in between rounds to odd so that a double just above a
  // midpoint between two halves still rounds up (1 + 2^-11 + 2^-40 to 1 + 2^-10).
  DefaultBuild b = build_default(R"(
def h(double(N) D) -> (H, E) {
    H(i) = float16(D(i))
    E(i) = double(H(i)) * 2.0
})", 64);
  ASSERT_TRUE(b.compiled);
  expect_vectorised(*b.compiled, {"@__truncdfhf2", "@__extendhfdf2"}, " x half>");
  Tensor d = *Tensor::zeros(ScalarType::Float64, {64});
  const double values[] = {1 + 0x1p-11 + 0x1p-40, 1 + 0x1p-11 - 0x1p-40, 1 + 0x1p-11, 1 + 3 * 0x1p-11, -(1 + 0x1p-11 + 0x1p-40),
                           65520.0, 65519.99, 1e300, -1e-300, 0x1p-25 + 0x1p-60, 0x1p-25, NAN, -INFINITY, -0.0};
  for (int i = 0; i < 64; ++i) d.as<double>()[i] = i < int(std::size(values)) ? values[i] : std::ldexp(1.0 + i / 64.0, i - 30);
  auto got = b.compiled->kernel->run({{"D", d}});
  auto want = interpret(b.checked->defs.at(0), *shapes_evaluate(b.checked->defs.at(0), {{"N", 64}}), {{"D", d}});
  ASSERT_TRUE(got && want);
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(got->at("H").as<uint16_t>()[i], want->at("H").as<uint16_t>()[i]) << "float16(" << d.as<double>()[i] << ")";
    double g = got->at("E").as<double>()[i], w = want->at("E").as<double>()[i];
    EXPECT_TRUE(g == w || (std::isnan(g) && std::isnan(w))) << "double(float16(" << d.as<double>()[i] << "))";
  }
}

TEST(TwoArgumentMath, Atan2HypotFdimAndFdivideMatchTheCLibraryWithTheirSpecialCases) {
  // Each called the double reference per element. Every pair of these values (zeros of
  // both signs, infinities, NaN) and pairs across the range, in float and in double.
  std::vector<double> specials = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 3.5, -2.25, 1e-30, -1e30, 1e-300, 1e300};
  std::vector<std::pair<double, double>> pairs;
  for (double a : specials)
    for (double b : specials) pairs.emplace_back(a, b);
  for (int i = 0; i < 3000; ++i)
    pairs.emplace_back(std::sin(i * 1.7) * std::pow(10.0, (i % 61) - 30), std::cos(i * 0.9) * std::pow(10.0, (i % 37) - 18));
  for (const char* type : {"float", "double"}) {
    std::string source = std::string("def two(") + type + "(N) Y, " + type + R"((N) X) -> (A, H, D, Q) {
    A(i) = atan2(Y(i), X(i))
    H(i) = hypot(Y(i), X(i))
    D(i) = fdim(Y(i), X(i))
    Q(i) = fdivide(Y(i), X(i))
})";
    DefaultBuild b = build_default(source.c_str(), int64_t(pairs.size()));
    ASSERT_TRUE(b.compiled);
    bool dbl = std::string(type) == "double";
    expect_vectorised(*b.compiled, {"@tcs_builtin_", "@atan2", "@hypot"}, dbl ? " x double> " : " x float> ");
    auto out = run_on_pairs(*b.compiled, dbl ? ScalarType::Float64 : ScalarType::Float32, pairs, "Y", "X");
    ASSERT_TRUE(out) << out.error();
    struct Fn {
      const char* name;
      double (*ref)(double, double);
    };
    for (const Fn& f : {Fn{"A", [](double a, double c) { return std::atan2(a, c); }},
                        Fn{"H", [](double a, double c) { return std::hypot(a, c); }},
                        Fn{"D", [](double a, double c) { return std::fdim(a, c); }},
                        Fn{"Q", [](double a, double c) { return a / c; }}}) {
      int failures = 0;
      for (size_t i = 0; i < pairs.size() && failures < 5; ++i) {
        double a = dbl ? pairs[i].first : double(float(pairs[i].first));
        double c = dbl ? pairs[i].second : double(float(pairs[i].second));
        double want = dbl ? f.ref(a, c) : double(float(f.ref(a, c)));
        double got = dbl ? out->at(f.name).as<double>()[i] : double(out->at(f.name).as<float>()[i]);
        double u = ulps(got, want);
        if (!dbl && u > 0 && std::fabs(got - want) <= 4e-7 * std::fabs(want)) u = 0;
        bool ok = u <= 3 && (want != 0 || std::signbit(got) == std::signbit(want));
        if (!ok) ++failures;
        EXPECT_TRUE(ok) << type << " " << f.name << "(" << a << ", " << c << ") = " << got << ", want " << want;
      }
    }
  }
}

TEST(FloatMath, ARowsLastElementsAreMaskedVectorsNotScalars) {
  // Rows of 1000 and 1008 at 16 lanes. LLVM's own remainder loop had computed 8 exps of
  // each row of 1000 one at a time, and 48 adds of a sum over 1008 in one chain; now
  // groups of four vectors come first and the rest (40 and 48 elements) runs in vectors,
  // here with the special values among them. (A host without AVX has no masked stores.)
  if (host_vector_bytes() < 32) GTEST_SKIP() << "no AVX on this host";
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def rows(float(N,D) X) -> (E, S) {
    E(n, d) = exp(X(n, d))
    S(n) +=! E(n, d)
})");
  ASSERT_FALSE(checked->has_errors());
  const SemaDef& def = checked->defs.at(0);
  auto options = mapping_options_from_json(R"({"outerScheduleFusionStrategy": "Max", "cpu": {"vectorWidth": 16}})");
  ASSERT_TRUE(options) << options.error();
  for (int64_t d : {1000, 1008}) {
    auto shapes = shapes_evaluate(def, {{"N", 3}, {"D", d}});
    ASSERT_TRUE(shapes) << shapes.error();
    auto compiled = compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *options, CodegenChoice{"cpu", {"llvm"}, true});
    ASSERT_TRUE(compiled) << compiled.error();
    const std::string& ir = compiled->text("llvm").text;
    EXPECT_EQ(ir.find("fmul float "), std::string::npos) << "D " << d << ": a scalar exp";
    if (d % 16) {
      EXPECT_NE(ir.find("llvm.masked.store"), std::string::npos) << "D " << d << ": the rest is not masked";
    }
    auto inputs = random_inputs(def, *shapes, 3);
    ASSERT_TRUE(inputs) << inputs.error();
    float* x = inputs->at("X").as<float>();
    for (int64_t r = 0; r < 3; ++r) {  // a NaN, inf, -inf; overflow; a subnormal result; underflow
      const float last[] = {NAN, INFINITY, -INFINITY};
      x[r * d + d - 1] = last[r];
      x[r * d + d - 2] = r == 0 ? 100.0f : -95.0f;
      x[r * d + d - 3] = -120.0f;
    }
    expect_as_interpreted(def, *shapes, *compiled->kernel, *inputs, "D " + std::to_string(d) + ": ");
  }
}

TEST(FloatMath, ShortRowsAreMaskedVectorsAlongTheRowNotGathersAcrossRows) {
  // Rows of 28 and 14 at 16 lanes. LLVM had unrolled the short row in full before it
  // vectorised, then vectorised the loop over rows instead, with a gather per operand and
  // a scatter per result (a residual add ran at 8 GB/s from the L2); rows of 14 stayed
  // scalar. Now each row is masked vectors. (X is read one column on from rows one
  // longer, so the rows do not run on into each other and stay loops of their own:
  // loopnest/CollapseRows.cpp.)
  if (host_vector_bytes() < 32) GTEST_SKIP() << "no AVX on this host";
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def residual(float(N,H,V) X, float(N,H,W) R) -> (Y) {
    Y(n, h, w) = fmax(X(n, h, w + 1) + R(n, h, w), 0)
})");
  ASSERT_FALSE(checked->has_errors());
  const SemaDef& def = checked->defs.at(0);
  auto options = mapping_options_from_json(R"({"cpu": {"vectorWidth": 16}})");
  ASSERT_TRUE(options) << options.error();
  for (int64_t w : {28, 14}) {
    auto shapes = shapes_evaluate(def, {{"N", 3}, {"H", 28}, {"W", w}, {"V", w + 1}});
    ASSERT_TRUE(shapes) << shapes.error();
    auto compiled = compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *options, CodegenChoice{"cpu", {"llvm"}, true});
    ASSERT_TRUE(compiled) << compiled.error();
    const std::string& ir = compiled->text("llvm").text;
    EXPECT_EQ(ir.find("llvm.masked.gather"), std::string::npos) << "W " << w << ": gathers across rows";
    EXPECT_EQ(ir.find("llvm.masked.scatter"), std::string::npos) << "W " << w << ": scatters across rows";
    EXPECT_EQ(ir.find("fadd float "), std::string::npos) << "W " << w << ": a scalar add";
    EXPECT_NE(ir.find("llvm.masked.store"), std::string::npos) << "W " << w << ": the row is not masked vectors";
    auto inputs = random_inputs(def, *shapes, 5);
    ASSERT_TRUE(inputs) << inputs.error();
    expect_as_interpreted(def, *shapes, *compiled->kernel, *inputs, "W " + std::to_string(w) + ": ");
  }
}

TEST(FloatMath, ASumOverShortRowsIsMaskedVectorsNotGathersAcrossChannels) {
  // A global average pooling sums rows of 14 at 16 lanes. Such a reduction was left
  // scalar as if it were a pooling window, and LLVM vectorised the channel loop around it
  // with a gather per vector, 196 floats apart.
  if (host_vector_bytes() < 64) GTEST_SKIP() << "the rule is about 16 lanes";
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def gap(float(N,C,H,W) I) -> (O) {
    O(n, c) +=! I(n, c, h, w)
})");
  ASSERT_FALSE(checked->has_errors());
  const SemaDef& def = checked->defs.at(0);
  auto options = mapping_options_from_json(R"({"cpu": {"vectorWidth": 16}})");
  ASSERT_TRUE(options) << options.error();
  auto shapes = shapes_evaluate(def, {{"N", 2}, {"C", 32}, {"H", 14}, {"W", 14}});
  ASSERT_TRUE(shapes) << shapes.error();
  auto compiled = compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *options, CodegenChoice{"cpu", {"llvm"}, true});
  ASSERT_TRUE(compiled) << compiled.error();
  const std::string& ir = compiled->text("llvm").text;
  EXPECT_EQ(ir.find("llvm.masked.gather"), std::string::npos) << "gathers across channels";
  EXPECT_NE(ir.find("llvm.masked.load"), std::string::npos) << "the rows are not masked vectors";
  auto inputs = random_inputs(def, *shapes, 9);
  ASSERT_TRUE(inputs) << inputs.error();
  expect_as_interpreted(def, *shapes, *compiled->kernel, *inputs, "");
}

TEST(FloatMath, AGlobalPoolingsShortRowsAreMaskedVectorsNotGathersAcrossChannels) {
  // A global pooling over 7 x 7 pixels: rows too short for the reduction rule, and the
  // channel loop around them moves 49 floats, too far for the pooling rule. LLVM
  // vectorised the channels with a gather per pixel (6 ms for 32 x 2048 channels on one
  // thread). Now each row of 7 is one masked vector, and CollapseRows then runs a
  // channel's 49 pixels as one vector loop.
  if (host_vector_bytes() < 32) GTEST_SKIP() << "no AVX on this host";
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def gap(float(N,C,H,W) I) -> (O) {
    O(n, c) +=! I(n, c, h, w)
    O(n, c) = O(n, c) / float(H * W)
})");
  ASSERT_FALSE(checked->has_errors());
  const SemaDef& def = checked->defs.at(0);
  auto options = mapping_options_from_json(R"({"outerScheduleFusionStrategy": "Preserve3Coincident", "cpu": {"vectorWidth": 16}})");
  ASSERT_TRUE(options) << options.error();
  for (int64_t side : {7, 5}) {
    auto shapes = shapes_evaluate(def, {{"N", 2}, {"C", 48}, {"H", side}, {"W", side}});
    ASSERT_TRUE(shapes) << shapes.error();
    auto compiled = compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *options, CodegenChoice{"cpu", {"llvm"}, true});
    ASSERT_TRUE(compiled) << compiled.error();
    const std::string& ir = compiled->text("llvm").text;
    EXPECT_EQ(ir.find("llvm.masked.gather"), std::string::npos) << side << " x " << side << ": gathers across channels";
    EXPECT_NE(ir.find("llvm.masked.load"), std::string::npos) << side << " x " << side << ": the rows are not masked vectors";
    auto inputs = random_inputs(def, *shapes, 4);
    ASSERT_TRUE(inputs) << inputs.error();
    expect_as_interpreted(def, *shapes, *compiled->kernel, *inputs, std::to_string(side) + ": ");
  }
}

TEST(FloatMath, APoolingsRowIsVectorsOverItsWindowsNotGathersAcrossRows) {
  // The window loops of a pooling (kh, kw) are innermost and too short to vectorise. LLVM
  // unrolled the output row with its windows and vectorised the loop over rows, with a
  // gather per window element: the bundled 2x2 average pooling took 2.2 us on one
  // thread. Now the row is the vector loop, its windows unrolled into it, its reads two
  // apart (stride 2) or next to each other (stride 1) whole loads.
  if (host_vector_bytes() < 32) GTEST_SKIP() << "no AVX on this host";
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def avgpool(float(N,C,H,W) I) -> (O) {
    O(n, c, h, w) +=! I(n, c, 2*h + kh, 2*w + kw) where kh in 0:2, kw in 0:2
    O(n, c, h, w)  =  O(n, c, h, w) / 4.0
}
def maxpool3(float(N,C,H,W) I) -> (O) {
    O(n, c, h, w) max=! I(n, c, h + kh, w + kw) where kh in 0:3, kw in 0:3
})");
  ASSERT_FALSE(checked->has_errors());
  auto options = mapping_options_from_json(R"({"outerScheduleFusionStrategy": "Preserve3Coincident", "cpu": {"vectorWidth": 16}})");
  ASSERT_TRUE(options) << options.error();
  for (const SemaDef& def : checked->defs)
    for (int64_t w : {16, 34}) {
      auto shapes = shapes_evaluate(def, {{"N", 2}, {"C", 8}, {"H", 16}, {"W", w}});
      ASSERT_TRUE(shapes) << shapes.error();
      auto compiled = compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *options, CodegenChoice{"cpu", {"llvm"}, true});
      ASSERT_TRUE(compiled) << compiled.error();
      std::string where = def.name + " at W " + std::to_string(w) + ": ";
      const std::string& ir = compiled->text("llvm").text;
      EXPECT_EQ(ir.find("llvm.masked.gather"), std::string::npos) << where << "gathers across rows";
      EXPECT_NE(ir.find("x float>, ptr"), std::string::npos) << where << "no vector loads";
      auto inputs = random_inputs(def, *shapes, 3);
      ASSERT_TRUE(inputs) << inputs.error();
      expect_as_interpreted(def, *shapes, *compiled->kernel, *inputs, where);
    }
}

}  // namespace
}  // namespace tcs
