// float16 kernels on an x86 without AVX512-FP16: LLVM scalarised every compare, minimum
// and maximum of half vectors (a ReLU over float16 rows ran 11x slower than it does
// vectorised); codegen/LlvmHalfCompares.cpp widens them to float after optimisation. The
// kernel's IR holds none of them, and its results, special values included, are the
// interpreter's. Math builtins of halves are computed in float, in vectors.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "Compiler.h"
#include "common/AsInterpreted.h"
#include "lang/Frontend.h"
#include "runtime/Half.h"
#include "runtime/RandomInputs.h"

namespace tcs {
namespace {

bool host_has_fp16_vectors() {
  std::ifstream in("/proc/cpuinfo");
  std::string word;
  while (in >> word)
    if (word == "avx512_fp16") return true;
  return false;
}

TEST(HalfVectors, ComparesMinimaAndMaximaOfHalfVectorsRunInFloat) {
  if (host_has_fp16_vectors()) GTEST_SKIP() << "this host computes half vectors itself (AVX512-FP16)";
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def half_ops(float16(N,D) X, float16(D) b) -> (Y, M, Z) {
    Y(n, d) = max(X(n, d) + b(d), float16(0))
    M(n) max=! X(n, d)
    Z(n, d) = X(n, d) < b(d) ? X(n, d) : b(d)
})");
  ASSERT_FALSE(checked->has_errors());
  const SemaDef& def = checked->defs.at(0);
  auto shapes = shapes_evaluate(def, {{"N", 4}, {"D", 200}});
  ASSERT_TRUE(shapes) << shapes.error();
  auto options = mapping_preset("default", def);
  auto compiled = compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *options, CodegenChoice{"cpu", {"llvm"}, true});
  ASSERT_TRUE(compiled) << compiled.error();
  const std::string& ir = compiled->text("llvm").text;
  EXPECT_NE(ir.find(" x half>"), std::string::npos) << "not vectorised";
  std::istringstream lines(ir);
  for (std::string line; std::getline(lines, line);) {
    bool half_vector = line.find(" x half>") != std::string::npos;
    bool compare = line.find(" fcmp ") != std::string::npos;
    bool pick = line.find("call ") != std::string::npos &&
                (line.find("max") != std::string::npos || line.find("min") != std::string::npos);
    EXPECT_FALSE(half_vector && (compare || pick)) << line;
  }

  auto inputs = random_inputs(def, *shapes, 7);
  ASSERT_TRUE(inputs) << inputs.error();
  uint16_t* x = inputs->at("X").as<uint16_t>();
  const float specials[] = {NAN, INFINITY, -INFINITY, -0.0f, 0.0f, 65504.0f, -65504.0f, 6e-8f};
  for (size_t i = 0; i < std::size(specials); ++i) x[i * 97 % 800] = float_to_half(specials[i]);
  testing_support::expect_as_interpreted(def, *shapes, *compiled->kernel, *inputs, "");
}

TEST(HalfVectors, MathBuiltinsOfHalvesRunInFloatVectors) {
  // Each had called the double reference per element: tanh over 1024^2 halves took 23 ms
  // on one thread, exp 11 ms, sqrt 8.7 ms; now 0.55, 0.31 and 0.18.
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def half_math(float16(N) X) -> (E, T, R, Q, F) {
    E(i) = exp(X(i))
    T(i) = tanh(X(i))
    R(i) = erf(X(i)) + log(fabs(X(i)))
    Q(i) = sqrt(X(i))
    F(i) = floor(X(i)) + fmin(X(i), float16(1)) + sin(X(i))
})");
  ASSERT_FALSE(checked->has_errors());
  const SemaDef& def = checked->defs.at(0);
  auto shapes = shapes_evaluate(def, {{"N", 1000}});
  ASSERT_TRUE(shapes) << shapes.error();
  auto options = mapping_preset("default", def);
  auto compiled = compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *options, CodegenChoice{"cpu", {"llvm"}, true});
  ASSERT_TRUE(compiled) << compiled.error();
  const std::string& ir = compiled->text("llvm").text;
  for (const char* fn : {"@tcs_builtin_exp", "@tcs_builtin_tanh", "@tcs_builtin_erf", "@tcs_builtin_log",
                         "@tcs_builtin_sqrt", "@tcs_builtin_floor", "@tcs_builtin_fmin"})
    EXPECT_EQ(ir.find(fn), std::string::npos) << fn << " is called";
  EXPECT_NE(ir.find(" x float> "), std::string::npos) << "not computed in float vectors";

  auto inputs = random_inputs(def, *shapes, 11);
  ASSERT_TRUE(inputs) << inputs.error();
  uint16_t* x = inputs->at("X").as<uint16_t>();
  const float specials[] = {NAN, INFINITY, -INFINITY, -0.0f, 0.0f, 65504.0f, -65504.0f, 6e-8f, 11.5f, -17.0f, 0.6f};
  for (size_t i = 0; i < std::size(specials); ++i) x[i * 89 % 1000] = float_to_half(specials[i]);
  testing_support::expect_as_interpreted(def, *shapes, *compiled->kernel, *inputs, "");
}

}  // namespace
}  // namespace tcs
