// Float to integer conversions saturate and take NaN to 0 (the interpreter's rule). LLVM's
// saturating conversion intrinsics are split into one scalar conversion per lane on x86
// (a quantisation to int8 ran 6.6x slower so), and the emitter now writes the clamp out:
// every integer type from float, double and float16, over the values where the rule
// matters, as the interpreter computes them, and no saturating intrinsic left in the IR.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "Compiler.h"
#include "common/AsInterpreted.h"
#include "lang/Frontend.h"
#include "runtime/Half.h"

namespace tcs {
namespace {

constexpr const char* kConversions = R"(
def conversions(float(N) X, double(N) D, float16(N) H) -> (I8, U8, I16, U16, I32, U32, I64, U64, DI32, DU32, DI64, DU64, HI8, HU16, HI32) {
    I8(i) = int8(X(i))
    U8(i) = uint8(X(i))
    I16(i) = int16(X(i))
    U16(i) = uint16(X(i))
    I32(i) = int32(X(i))
    U32(i) = uint32(X(i))
    I64(i) = int64(X(i))
    U64(i) = uint64(X(i))
    DI32(i) = int32(D(i))
    DU32(i) = uint32(D(i))
    DI64(i) = int64(D(i))
    DU64(i) = uint64(D(i))
    HI8(i) = int8(H(i))
    HU16(i) = uint16(H(i))
    HI32(i) = int32(H(i))
})";

// Around each type's ends, both signs, fractions, and the special values.
std::vector<double> values() {
  std::vector<double> v = {0.0, -0.0, 0.5, -0.5, 0.999, -0.999, 1.5, -1.5, NAN, INFINITY, -INFINITY, 1e30, -1e30};
  for (int bits : {8, 16, 32, 64}) {
    for (double end : {std::ldexp(1.0, bits - 1), std::ldexp(1.0, bits)})
      for (double d : {-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0}) {
        v.push_back(end + d);
        v.push_back(-end + d);
        v.push_back(std::nextafter(end, 0.0));
        v.push_back(std::nextafter(end, 1e300));
        v.push_back(std::nextafter(float(end), 0.0f));
      }
  }
  for (double x = -300; x <= 300; x += 0.75) v.push_back(x);
  return v;
}

TEST(Conversions, FloatToIntegerSaturatesInVectorsAsTheInterpreterDoes) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", kConversions);
  ASSERT_FALSE(checked->has_errors());
  const SemaDef& def = checked->defs.at(0);
  std::vector<double> v = values();
  auto shapes = shapes_evaluate(def, {{"N", int64_t(v.size())}});
  ASSERT_TRUE(shapes) << shapes.error();
  auto options = mapping_preset("default", def);
  auto compiled = compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *options, CodegenChoice{"cpu", {"llvm"}, true});
  ASSERT_TRUE(compiled) << compiled.error();
  const std::string& ir = compiled->text("llvm").text;
  EXPECT_EQ(ir.find("fptosi.sat"), std::string::npos);
  EXPECT_EQ(ir.find("fptoui.sat"), std::string::npos);
  EXPECT_NE(ir.find(" x float>"), std::string::npos) << "not vectorised";

  int64_t n = int64_t(v.size());
  Tensor x = *Tensor::zeros(ScalarType::Float32, {n}), d = *Tensor::zeros(ScalarType::Float64, {n}),
         h = *Tensor::zeros(ScalarType::Float16, {n});
  for (int64_t i = 0; i < n; ++i) {
    x.as<float>()[i] = float(v[size_t(i)]);
    d.as<double>()[i] = v[size_t(i)];
    h.as<uint16_t>()[i] = double_to_half(v[size_t(i)]);
  }
  testing_support::expect_as_interpreted(def, *shapes, *compiled->kernel, {{"X", x}, {"D", d}, {"H", h}}, "");
}

}  // namespace
}  // namespace tcs
