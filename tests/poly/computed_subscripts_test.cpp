// Subscripts the front end cannot solve but the sizes bound (`y / 2`, `x % 2`,
// `(x + 1) % N`): their values by interval arithmetic, and compiled kernels that read
// them without a check (which kept LLVM from vectorising the loop: nearest upsampling ran
// one element at a time) where those values lie inside the tensor, and keep the check
// where they may not.
#include <gtest/gtest.h>

#include "Compiler.h"
#include "common/AsInterpreted.h"
#include "lang/Frontend.h"
#include "lang/SubscriptValues.h"
#include "runtime/RandomInputs.h"

namespace tcs {
namespace {

constexpr const char* kKernels = R"(
def upsample(float(N,C,H,W) I) -> (O) {
    O(n, c, y, x) = I(n, c, y / 2, x / 2) where y in 0:2*H, x in 0:2*W
}
def pixel_shuffle(float(N,C4,H,W) I) -> (O) {
    O(n, c, y, x) = I(n, c * 4 + (y % 2) * 2 + x % 2, y / 2, x / 2) where c in 0:C4/4, y in 0:2*H, x in 0:2*W
}
def roll(float(N,W) I) -> (O) {
    O(n, x) = I(n, (x + 3) % W) where x in 0:W
}
def past_the_end(float(N,W) I) -> (O) {
    O(n, x) = I(n, x / 2) where x in 0:2*W+1
}
def gather(float(N,W) I, int32(W) at) -> (O) {
    O(n, x) = I(n, at(x))
}
)";

std::shared_ptr<const CheckedFile> kernels() {
  static std::shared_ptr<const CheckedFile> checked = check_source("k.tc", kKernels);
  return checked;
}

const SemaDef& def_named(const std::string& name) {
  for (const SemaDef& d : kernels()->defs)
    if (d.name == name) return d;
  throw std::runtime_error("no def " + name);
}

// The right-hand side's read of I in the def's only statement: its subscript `dim`.
const ast::Expr& subscript_of_I(const SemaDef& def, int dim) {
  for (const AccessConstraint& c : def.stmts[0].constraints)
    if (def.tensors[size_t(c.tensor)].name == "I" && c.dim == dim && c.subscript) return *c.subscript;
  throw std::runtime_error("no read of I");
}

using Values = std::optional<std::pair<int64_t, int64_t>>;

Values values_of(const std::string& kernel, int dim, const SizeMap& sizes) {
  const SemaDef& def = def_named(kernel);
  auto shapes = shapes_evaluate(def, sizes);
  if (!shapes) throw std::runtime_error(shapes.error());
  return subscript_values(subscript_of_I(def, dim), shapes->stmts[0], sizes);
}

TEST(ComputedSubscripts, ValuesFollowDivisionAndRemainderOverTheIndexRanges) {
  ASSERT_FALSE(kernels()->has_errors());
  SizeMap s = {{"N", 2}, {"C", 3}, {"C4", 8}, {"H", 5}, {"W", 7}};
  EXPECT_EQ(values_of("upsample", 2, s), Values({0, 4}));
  EXPECT_EQ(values_of("upsample", 3, s), Values({0, 6}));
  EXPECT_EQ(values_of("pixel_shuffle", 1, s), Values({0, 7}));  // c in 0..1: 0..4 + 0..2 + 0..1
  EXPECT_EQ(values_of("roll", 1, s), Values({0, 6}));           // (3..9) % 7 wraps: all of 0..6
  EXPECT_EQ(values_of("past_the_end", 1, s), Values({0, 7}));   // one past I's last column
  EXPECT_EQ(values_of("gather", 1, s), std::nullopt);           // reads a tensor
}

// Compiled for the CPU with its LLVM IR; whether a subscript is checked shows as the
// error bit's atomic or.
struct Compiled {
  std::string ir;
  std::shared_ptr<Kernel> kernel;
  DefShapes shapes;
};

Compiled compile(const std::string& kernel, const SizeMap& sizes) {
  const SemaDef& def = def_named(kernel);
  auto shapes = shapes_evaluate(def, sizes);
  if (!shapes) throw std::runtime_error(shapes.error());
  auto options = mapping_preset("default", def);
  auto compiled = compile_kernel(KernelSetup{kernels(), &def, {}, *shapes}, *options, CodegenChoice{"cpu", {"llvm"}, true});
  if (!compiled) throw std::runtime_error(compiled.error());
  return {compiled->text("llvm").text, compiled->kernel, *shapes};
}

TEST(ComputedSubscripts, ReadsInsideTheTensorAreUncheckedVectorsAndMatchTheInterpreter) {
  SizeMap s = {{"N", 2}, {"C", 3}, {"C4", 8}, {"H", 5}, {"W", 40}};
  for (const char* name : {"upsample", "pixel_shuffle", "roll"}) {
    Compiled k = compile(name, s);
    EXPECT_EQ(k.ir.find("atomicrmw"), std::string::npos) << name << ": a subscript is still checked";
    EXPECT_NE(k.ir.find(" x float>"), std::string::npos) << name << ": not vectorised";
    const SemaDef& def = def_named(name);
    auto inputs = random_inputs(def, k.shapes, 5);
    ASSERT_TRUE(inputs) << inputs.error();
    testing_support::expect_as_interpreted(def, k.shapes, *k.kernel, *inputs, std::string(name) + ": ");
  }
}

TEST(ComputedSubscripts, AReadThatMayLeaveTheTensorIsStillChecked) {
  SizeMap s = {{"N", 2}, {"W", 40}};
  for (const char* name : {"past_the_end", "gather"}) {
    Compiled k = compile(name, s);
    EXPECT_NE(k.ir.find("atomicrmw"), std::string::npos) << name << ": the subscript is not checked";
  }
  Compiled k = compile("past_the_end", s);
  auto inputs = random_inputs(def_named("past_the_end"), k.shapes, 5);
  ASSERT_TRUE(inputs) << inputs.error();
  auto got = k.kernel->run(*inputs);
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().find("out of range"), std::string::npos) << got.error();
}

}  // namespace
}  // namespace tcs
