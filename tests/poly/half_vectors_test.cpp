// float16 kernels on an x86 without AVX512-FP16: LLVM scalarised every compare, minimum
// and maximum of half vectors (a ReLU over float16 rows ran 11x slower than it does
// vectorised); codegen/LlvmHalfCompares.cpp widens them to float after optimisation. The
// kernel's IR holds none of them, and its results, special values included, are the
// interpreter's. Math builtins of halves are computed in float, in vectors.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <tuple>
#include <fstream>

#include "Compiler.h"
#include "common/AsInterpreted.h"
#include "lang/Frontend.h"
#include "runtime/Interpreter.h"
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

TEST(HalfVectors, FmaAndPowRoundAsTheReferenceDoes) {
  // Computed in float, fma rounded a half's sum twice (6.5 * -4368 - 0x1.734p-12 rounded
  // to -28384, not -28400), and an integer exponent lost its last bit (16777217 became
  // even: pow(-1, 16777217) gave 1), for float results too. Each result here is the
  // interpreter's, bit for bit.
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", R"(
def fma_pow(float16(N) A, float16(N) B, float16(N) C, float(N) G) -> (F, P, Q) {
    F(i) = fma(A(i), B(i), C(i))
    P(i) = pow(A(i), 16777217)
    Q(i) = pow(G(i), 16777217)
})");
  ASSERT_FALSE(checked->has_errors());
  const SemaDef& def = checked->defs.at(0);
  const float a[] = {6.5f, -1.0f, -4096.0f, -0.0107f, 1.0f, -0.0f, 0.999f, -1.001f};
  const float b[] = {-4368.0f, 3.0f, 4096.0f, 2.0f, 1.0f, 5.0f, -7.0f, 0.5f};
  const float c[] = {-0x1.734p-12f, 0.25f, 16.0f, -1.0f, 0.0f, -0.0f, 1e-3f, 3.0f};
  const float g[] = {-1.0f, -2.0f, -0.5f, 1.0f, -1.0000001f, -0.0f, 2.0f, -0.9999999f};
  const int64_t n = int64_t(std::size(a));
  auto shapes = shapes_evaluate(def, {{"N", n}});
  ASSERT_TRUE(shapes) << shapes.error();
  auto options = mapping_preset("default", def);
  auto compiled = compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *options, CodegenChoice{"cpu", {"llvm"}, true});
  ASSERT_TRUE(compiled) << compiled.error();
  TensorMap inputs;
  for (auto [name, values, type] : {std::tuple{"A", a, ScalarType::Float16}, std::tuple{"B", b, ScalarType::Float16},
                                    std::tuple{"C", c, ScalarType::Float16}, std::tuple{"G", g, ScalarType::Float32}}) {
    Tensor t = *Tensor::zeros(type, {n});
    for (int64_t i = 0; i < n; ++i)
      if (type == ScalarType::Float16) t.as<uint16_t>()[i] = float_to_half(values[i]);
      else t.as<float>()[i] = values[i];
    inputs.emplace(name, t);
  }
  auto want = interpret(def, *shapes, inputs);
  auto got = compiled->kernel->run(inputs);
  ASSERT_TRUE(want && got);
  for (const char* name : {"F", "P"})
    for (int64_t i = 0; i < n; ++i)
      EXPECT_EQ(got->at(name).as<uint16_t>()[i], want->at(name).as<uint16_t>()[i])
          << name << "[" << i << "]: " << half_to_float(got->at(name).as<uint16_t>()[i]) << ", want "
          << half_to_float(want->at(name).as<uint16_t>()[i]);
  for (int64_t i = 0; i < n; ++i)
    EXPECT_EQ(std::bit_cast<uint32_t>(got->at("Q").as<float>()[i]), std::bit_cast<uint32_t>(want->at("Q").as<float>()[i]))
        << "Q[" << i << "]: " << got->at("Q").as<float>()[i] << ", want " << want->at("Q").as<float>()[i];
}

}  // namespace
}  // namespace tcs
