// The generated C means what the interpreter means and always compiles: every example's C
// text, under several option sets, compiled by the system C compiler, run on the same
// inputs as the interpreter and compared; and defs whose names are the generator's own
// identifiers, C keywords and libm names.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "Compiler.h"
#include "codegen/CText.h"
#include "codegen/StmtSemantics.h"
#include "common/Examples.h"
#include "options/OptionsSchema.h"
#include "runtime/Compare.h"
#include "runtime/Interpreter.h"
#include "runtime/RandomInputs.h"

namespace tcs {
namespace {

namespace fs = std::filesystem;

// Compiles `c` with a driver that reads every input from DIR/<index>.bin, runs the
// kernel and writes every output to DIR/<index>.out; returns the outputs. With
// `symbolic_sizes` the kernel takes the sizes of `shapes` as arguments and must return 0.
Expected<TensorMap> run_c(const std::string& c, const SemaDef& def, const DefShapes& shapes, const TensorMap& inputs,
                          const fs::path& dir, bool symbolic_sizes = false) {
  fs::create_directories(dir);
  std::string driver = c + "\n#include <stdio.h>\n#include <stdlib.h>\nint main(void) {\n";
  std::string call;
  if (symbolic_sizes)
    for (const std::string& p : def.size_params) call += (call.empty() ? "" : ", ") + std::to_string(shapes.sizes.at(p));
  for (size_t t = 0; t < def.tensors.size(); ++t) {
    const SemaTensor& T = def.tensors[t];
    size_t bytes = size_t(shapes.tensors[t].numel()) * scalar_type_bytes(T.type);
    std::string var = "b" + std::to_string(t), file = (dir / (std::to_string(t) + ".bin")).string();
    driver += "  " + std::string(c_type_name(T.type)) + "* " + var + " = calloc(" + std::to_string(bytes) + " + 1, 1);\n";
    if (T.role == TensorRole::Input) {
      std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(inputs.at(T.name).data.data()),
                                                  std::streamsize(bytes));
      driver += "  { FILE* f = fopen(\"" + file + "\", \"rb\"); if (!f || fread(" + var + ", 1, " + std::to_string(bytes) +
                ", f) != " + std::to_string(bytes) + ") return 3; fclose(f); }\n";
    }
    call += (call.empty() ? "" : ", ") + var;
  }
  driver += symbolic_sizes ? "  if (" + c_identifier(def.name) + "(" + call + ") != 0) return 4;\n"
                           : "  " + c_identifier(def.name) + "(" + call + ");\n";
  for (size_t t = 0; t < def.tensors.size(); ++t) {
    if (def.tensors[t].role != TensorRole::Output) continue;
    size_t bytes = size_t(shapes.tensors[t].numel()) * scalar_type_bytes(def.tensors[t].type);
    driver += "  { FILE* f = fopen(\"" + (dir / (std::to_string(t) + ".out")).string() + "\", \"wb\"); fwrite(b" +
              std::to_string(t) + ", 1, " + std::to_string(bytes) + ", f); fclose(f); }\n";
  }
  driver += "  return 0;\n}\n";
  std::ofstream(dir / "kernel.c") << driver;
  std::string cc = "cc -std=c11 -O1 -fopenmp -Wall -Werror -Wno-unknown-pragmas -Wno-unused-function -o " +
                   (dir / "kernel").string() + " " + (dir / "kernel.c").string() + " -lm 2> " + (dir / "cc.log").string();
  if (std::system(cc.c_str()) != 0) {
    std::ifstream log(dir / "cc.log");
    std::stringstream text;
    text << log.rdbuf();
    return Error{ErrorKind::Internal, "the C text does not compile:\n" + text.str()};
  }
  if (std::system(("OMP_NUM_THREADS=2 " + (dir / "kernel").string()).c_str()) != 0)
    return Error{ErrorKind::RuntimeFault, "the compiled C failed"};
  TensorMap out;
  for (size_t t = 0; t < def.tensors.size(); ++t) {
    const SemaTensor& T = def.tensors[t];
    if (T.role != TensorRole::Output) continue;
    auto z = Tensor::zeros(T.type, shapes.tensors[t].extent);
    if (!z) return z.failure();
    std::ifstream(dir / (std::to_string(t) + ".out"), std::ios::binary)
        .read(reinterpret_cast<char*>(z->data.data()), std::streamsize(z->data.size()));
    out[T.name] = std::move(*z);
  }
  return out;
}

// Other sizes the def accepts: each size moved by a few (up, else down), so the code
// compiled for the header's sizes runs on sizes it was not specialised to.
SizeMap other_sizes(const SemaDef& def, const SizeMap& sizes) {
  SizeMap moved = sizes;
  for (const std::string& p : def.size_params)
    for (int64_t delta : {3, 1, -1}) {
      SizeMap trial = moved;
      trial[p] = sizes.at(p) + delta;
      if (trial[p] >= 1 && shapes_evaluate(def, trial)) {
        moved = trial;
        break;
      }
    }
  return moved;
}

// The C text under each option set against the interpreter. With `symbolic_sizes` the C
// takes the sizes as arguments (tiles chosen for the header's sizes) and runs on other
// sizes, against the interpreter on those.
void expect_c_matches_interpreter(const std::shared_ptr<const CheckedFile>& file, const SemaDef& def,
                                  const std::vector<MappingOptions>& option_sets, const fs::path& dir,
                                  bool symbolic_sizes = false) {
  auto setup = kernel_setup(file, KernelSpec{def.name, {}, {}});
  ASSERT_TRUE(setup) << def.name << ": " << setup.error();
  auto shapes = symbolic_sizes ? shapes_evaluate(def, other_sizes(def, setup->shapes.sizes)) : setup->shapes;
  ASSERT_TRUE(shapes) << shapes.error();
  auto inputs = random_inputs(def, *shapes, symbolic_sizes ? 22 : 21);
  ASSERT_TRUE(inputs) << inputs.error();
  auto want = interpret(def, *shapes, *inputs);
  if (!want && want.error_kind() == ErrorKind::RuntimeFault) return;  // e.g. a division by zero on these inputs
  ASSERT_TRUE(want) << want.error();
  for (size_t i = 0; i < option_sets.size(); ++i) {
    CodegenChoice choice("cpu", {"c"}, false);
    choice.symbolic_sizes = symbolic_sizes;
    auto compiled = compile_kernel(*setup, option_sets[i], choice);
    if (!compiled && compiled.error_kind() == ErrorKind::Options) continue;  // random options this kernel refuses
    ASSERT_TRUE(compiled) << def.name << ": " << compiled.error();
    const std::string& c = compiled->text("c").text;
    std::string at = (symbolic_sizes ? " at " + sizes_describe(def, shapes->sizes) : std::string()) + " under\n" +
                     mapping_options_to_json(option_sets[i]);
    fs::path run_dir = dir / (def.name + (symbolic_sizes ? "_symbolic_" : "_") + std::to_string(i));
    auto got = run_c(c, def, *shapes, *inputs, run_dir, symbolic_sizes);
    ASSERT_TRUE(got) << def.name << at << got.error() << "\n" << c;
    for (const auto& [name, t] : *want) {
      TensorComparison cmp = compare_tensors(name, got->at(name), t);
      EXPECT_TRUE(cmp.ok) << def.name << at << cmp.problem << "\n" << c;
    }
  }
}

// The JIT kernel under the default preset against the interpreter, on seeded inputs; with
// `symbolic_sizes` a kernel that reads its sizes when it runs.
void expect_jit_matches_interpreter(const std::shared_ptr<const CheckedFile>& file, const SemaDef& def, uint64_t seed,
                                    bool symbolic_sizes = false) {
  auto setup = kernel_setup(file, KernelSpec{def.name, {}, {}});
  ASSERT_TRUE(setup) << def.name << ": " << setup.error();
  auto inputs = random_inputs(def, setup->shapes, seed);
  ASSERT_TRUE(inputs) << inputs.error();
  auto want = interpret(def, setup->shapes, *inputs);
  ASSERT_TRUE(want) << want.error();
  CodegenChoice choice("cpu", {}, true);
  choice.symbolic_sizes = symbolic_sizes;
  auto compiled = compile_kernel(*setup, *mapping_preset("default", def), choice);
  ASSERT_TRUE(compiled) << compiled.error();
  auto got = compiled->kernel->run(*inputs);
  ASSERT_TRUE(got) << got.error();
  for (const auto& [name, t] : *want) EXPECT_TRUE(compare_tensors(name, got->at(name), t).ok) << def.name << " " << name;
}

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / ("tcs_ctext_" + name + "_" + std::to_string(::getpid()));
}

class CText : public ::testing::TestWithParam<fs::path> {};

TEST_P(CText, CompilesAndMatchesTheInterpreter) {
  auto loaded = check_file(GetParam().string());
  ASSERT_TRUE(loaded) << loaded.error();
  std::shared_ptr<const CheckedFile> file = std::move(*loaded);
  fs::path dir = scratch(GetParam().stem().string());
  std::mt19937_64 rng(std::hash<std::string>{}(GetParam().stem().string()));
  for (const SemaDef& def : file->defs) {
    std::vector<MappingOptions> sets = {*mapping_preset("naive", def), *mapping_preset("default", def),
                                        random_mapping_options(rng, def)};
    expect_c_matches_interpreter(file, def, sets, dir);
    expect_c_matches_interpreter(file, def, {sets[1], random_mapping_options(rng, def)}, dir, true);
    expect_jit_matches_interpreter(file, def, 23, true);
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Examples, CText, ::testing::ValuesIn(testing_support::example_files()),
                         [](const auto& info) { return info.param.stem().string(); });

// Names the generator uses itself (v, c0, p0, B_pack0, tcs_...), C keywords and types,
// libm and <math.h> names, as tensors and as the def.
TEST(CTextNames, GeneratorAndCNamesDoNotCollide) {
  const char* text =
      "# sizes: N=16 K=8\n"
      "def minred(float(N,K) v) -> (c0) {\n  c0(i) min=! v(i, k)\n}\n"
      "def packed(float(N,K) int, float(K,N) B_pack0) -> (tcs_v) {\n  tcs_v(i, j) +=! int(i, k) * B_pack0(k, j)\n}\n"
      "def exp(float(N) expf, float(N) INFINITY, float(N) p0) -> (restrict, char) {\n"
      "  restrict(i) max=! expf(i) + INFINITY(i) * p0(i)\n  char(i) = exp(restrict(0) - expf(i))\n}\n"
      "def main(int32(N) v, int32(N) c1) -> (int32(N) true, uint8(N) uint8_t) {\n"
      "  true(i) = v(i) / c1(i) + v(i) % (c1(i) - 3) - v(i) * 1000000\n  uint8_t(i) = uint8(v(i) + c1(i))\n}\n";
  std::shared_ptr<const CheckedFile> file = check_source("names.tc", text);
  ASSERT_FALSE(file->has_errors()) << diagnostics_format(file->file, file->diagnostics);
  fs::path dir = scratch("names");
  for (const SemaDef& def : file->defs) {
    MappingOptions packed = *mapping_preset("default", def);
    expect_c_matches_interpreter(file, def, {*mapping_preset("naive", def), packed}, dir);
  }
  fs::remove_all(dir);
}

// Integer semantics the interpreter fixes and C leaves undefined or different.
TEST(CTextSemantics, IntegersWrapAndConversionsSaturate) {
  const char* text =
      "# sizes: N=64\n"
      "def ints(uint8(N) A, int32(N) B, float(N) X) -> (uint8(N) O, int32(N) P, int32(N) Q, uint16(N) R, int8(N) S) {\n"
      "  O(i) = (A(i) + A(i)) / uint8(2)\n"
      "  P(i) = B(i) * 1000000000 + B(i) / (B(i) * B(i) + 1) - B(i) % 4\n"
      "  Q(i) = int32(X(i) * 1.0e10)\n"
      "  R(i) = uint16(X(i) * 1.0e6) * uint16(300)\n"
      "  S(i) = int8(min(X(i), 0.0) * 1000.0)\n"
      "}\n";
  std::shared_ptr<const CheckedFile> file = check_source("ints.tc", text);
  ASSERT_FALSE(file->has_errors()) << diagnostics_format(file->file, file->diagnostics);
  fs::path dir = scratch("ints");
  const SemaDef& def = file->defs[0];
  expect_c_matches_interpreter(file, def, {*mapping_preset("naive", def), *mapping_preset("default", def)}, dir);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tcs

namespace tcs {
namespace {

// Every math function Tensor Comprehensions accepts, and bool operands promoted to numbers
// as TC promotes them: the interpreter, the JIT kernel and the C text agree.
TEST(CTextSemantics, TensorComprehensionsBuiltinsAndBoolOperands) {
  const char* text =
      "# sizes: N=64 M=8\n"
      "def tc(float(N,M) A, bool(N) Mask) -> (int32(N) Count, float(N) O, float(N) P, double(N) Q) {\n"
      "  Count(i) +=! A(i, j) > 0.0\n"
      "  O(i) = A(i, 0) * Mask(i) + (A(i, 1) > 0.5)\n"
      "  P(i) = nextafter(A(i, 3), 2.0) + rhypot(A(i, 0), 1.0) + norm3d(A(i, 0), A(i, 1), 1.0)"
      " + rnorm3d(A(i, 0), A(i, 1), 1.0) + norm4d(A(i, 0), A(i, 1), A(i, 2), 1.0)"
      " + rnorm4d(A(i, 0), A(i, 1), A(i, 2), 1.0) + cyl_bessel_i0(A(i, 4)) + cyl_bessel_i1(A(i, 5))\n"
      "  Q(i) = exp(double(A(i, 6)) * 100.0) + fmax(A(i, 7) > 0.0, 0.25)\n"
      "}\n";
  std::shared_ptr<const CheckedFile> file = check_source("tc.tc", text);
  ASSERT_FALSE(file->has_errors()) << diagnostics_format(file->file, file->diagnostics);
  const SemaDef& def = file->defs[0];
  fs::path dir = scratch("tc_builtins");
  expect_c_matches_interpreter(file, def, {*mapping_preset("naive", def), *mapping_preset("default", def)}, dir);
  fs::remove_all(dir);

  expect_jit_matches_interpreter(file, def, 3);  // the JIT kernel agrees too

  // nextafter steps in the result's precision: the next float after 1 is 1 + 2^-23.
  auto one = check_source("n.tc", "def n(float(N) A) -> (O) { O(i) = nextafter(A(i) * 0.0 + 1.0, 2.0) }\n");
  ASSERT_FALSE(one->has_errors());
  auto shapes = shapes_evaluate(one->defs[0], {{"N", 1}});
  ASSERT_TRUE(shapes);
  auto zero = Tensor::zeros(ScalarType::Float32, {1});
  auto out = interpret(one->defs[0], *shapes, {{"A", *zero}});
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(out->at("O").get_as_double(0), 1.0 + std::ldexp(1.0, -23));

  // Two bools in arithmetic have no type: still an error.
  auto two = check_source("b.tc", "def b(bool(N) X, bool(N) Y) -> (float(N) O) { O(i) = X(i) + Y(i) }\n");
  EXPECT_TRUE(two->has_errors());
}

// rsqrt is not in libm, yet the compiled kernel computes it in float: the C text (what an
// exported bundle builds from) does the same rather than going through a double helper,
// which it still defines for a double rsqrt.
TEST(CTextSemantics, AFloatRsqrtIsWrittenInFloat) {
  const char* text =
      "# sizes: N=64\n"
      "def r(float(N) A) -> (float(N) O, double(N) Q) {\n"
      "  O(i) = rsqrt(A(i) * A(i) + 1e-5)\n"
      "  Q(i) = rsqrt(double(A(i)) * A(i) + 1e-5)\n"
      "}\n";
  std::shared_ptr<const CheckedFile> file = check_source("r.tc", text);
  ASSERT_FALSE(file->has_errors()) << diagnostics_format(file->file, file->diagnostics);
  const SemaDef& def = file->defs[0];
  auto setup = kernel_setup(file, KernelSpec{def.name, {}, {}});
  ASSERT_TRUE(setup) << setup.error();
  auto compiled = compile_kernel(*setup, *mapping_preset("default", def), CodegenChoice("cpu", {"c"}, false));
  ASSERT_TRUE(compiled) << compiled.error();
  const std::string& c = compiled->text("c").text;
  EXPECT_NE(c.find("(1.0f / sqrtf("), std::string::npos) << c;
  // The double helper is defined once and called once, for Q.
  int helper = 0;
  for (size_t at = c.find("tcs_builtin_rsqrt("); at != std::string::npos; at = c.find("tcs_builtin_rsqrt(", at + 1)) ++helper;
  EXPECT_EQ(helper, 2) << c;
  fs::path dir = scratch("tc_rsqrt");
  expect_c_matches_interpreter(file, def, {*mapping_preset("naive", def), *mapping_preset("default", def)}, dir);
  fs::remove_all(dir);
}

// A total in parts on the threads (loopnest/SplitTotals.cpp) is C that OpenMP runs on two
// threads: each part from the identity into its own copy of the output (one element, or
// three channels), then the copies in order; at fixed sizes and with the sizes as
// arguments, fewer of them than parts included.
TEST(CTextSemantics, TotalsInPartsCompileAndMatchTheInterpreter) {
  const char* text =
      "# sizes: N=299 C=500 K=3\n"
      "def mse(float(N, C) P, float(N, C) T) -> (L) {\n  L +=! (P(n, c) - T(n, c)) * (P(n, c) - T(n, c))\n}\n"
      "def channels(float(N, C, K) X) -> (S) {\n  S(k) +=! X(n, c, k)\n}\n"
      "def top(float(N, C) X) -> (m) {\n  m max=! X(n, c)\n}\n"
      "def count(int32(N, C) X) -> (S) {\n  S +=! X(n, c) * 1000003\n}\n";
  std::shared_ptr<const CheckedFile> file = check_source("totals.tc", text);
  ASSERT_FALSE(file->has_errors()) << diagnostics_format(file->file, file->diagnostics);
  fs::path dir = scratch("totals");
  for (const SemaDef& def : file->defs) {
    auto setup = kernel_setup(file, KernelSpec{def.name, {}, {}});
    ASSERT_TRUE(setup) << setup.error();
    MappingOptions o = *mapping_preset("default", def, &setup->shapes);
    o.cpu.parallel = true;
    auto compiled = compile_kernel(*setup, o, CodegenChoice("cpu", {"c"}, false));
    ASSERT_TRUE(compiled) << compiled.error();
    EXPECT_NE(compiled->text("c").text.find("parallel partial totals"), std::string::npos) << compiled->text("c").text;
    expect_c_matches_interpreter(file, def, {o}, dir);
    expect_c_matches_interpreter(file, def, {o}, dir, true);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tcs

namespace tcs {
namespace {

// Reads guarded by '?:' may name elements outside the tensor for the indices their guard
// excludes (same padding, a shift): Tensor Comprehensions accepts them and checks at run
// time; so do we. The interpreter, the JIT kernel and the C text agree; a guard that does
// not hold is a run-time fault, not a crash.
TEST(GuardedReads, PaddingAndShiftsCompileAndRun) {
  const char* text =
      "# sizes: N=16 B=2 C=3 H=6 W=5 KH=3 KW=3 F=4\n"
      "def shift_right(float(N) A) -> (O) {\n  O(i) = (i >= 1) ? A(i - 1) : 0.0 where i in 0:N\n}\n"
      "def same_conv(float(B,C,H,W) I, float(F,C,KH,KW) Wt) -> (O) {\n"
      "  O(b, f, h, w) +=! (h + kh >= 1 && h + kh <= H && w + kw >= 1 && w + kw <= W) ?"
      " I(b, c, h + kh - 1, w + kw - 1) * Wt(f, c, kh, kw) : 0.0 where h in 0:H, w in 0:W, kh in 0:KH, kw in 0:KW\n}\n";
  std::shared_ptr<const CheckedFile> file = check_source("guarded.tc", text);
  ASSERT_FALSE(file->has_errors()) << diagnostics_format(file->file, file->diagnostics);
  for (const Diagnostic& d : file->diagnostics) EXPECT_NE(d.severity, Severity::Warning) << d.message;
  fs::path dir = scratch("guarded");
  for (const SemaDef& def : file->defs) {
    expect_c_matches_interpreter(file, def, {*mapping_preset("naive", def), *mapping_preset("default", def)}, dir);
    expect_jit_matches_interpreter(file, def, 2);
  }
  fs::remove_all(dir);

  // A guard that lets an out-of-range read through: both the interpreter and the kernel
  // say so instead of reading outside the tensor.
  std::shared_ptr<const CheckedFile> bad =
      check_source("bad.tc", "# sizes: N=8\ndef b(float(N) A) -> (O) {\n  O(i) = (i >= 0) ? A(i - 1) : 0.0 where i in 0:N\n}\n");
  ASSERT_FALSE(bad->has_errors());
  auto setup = kernel_setup(bad, {});
  ASSERT_TRUE(setup) << setup.error();
  auto inputs = random_inputs(bad->defs[0], setup->shapes, 1);
  ASSERT_TRUE(inputs);
  EXPECT_EQ(interpret(bad->defs[0], setup->shapes, *inputs).error_kind(), ErrorKind::RuntimeFault);
  auto compiled = compile_kernel(*setup, *mapping_preset("default", bad->defs[0]), CodegenChoice("cpu", {}, true));
  ASSERT_TRUE(compiled) << compiled.error();
  EXPECT_EQ(compiled->kernel->run(*inputs).error_kind(), ErrorKind::RuntimeFault);
}

}  // namespace
}  // namespace tcs
