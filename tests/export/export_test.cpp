// Export as a user meets it: a bundle configured and built by CMake inside a separate
// project of its own, in both variants (readable C and the LLVM object), its example run
// on .npy inputs, and every output compared with the interpreter's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>

#include "Compiler.h"
#include "codegen/X86Extensions.h"
#include "export/CpuCheck.h"
#include "export/Export.h"
#include "runtime/Compare.h"
#include "runtime/Interpreter.h"
#include "runtime/Npy.h"
#include "runtime/RandomInputs.h"

namespace tcs {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int run(const std::string& command) { return std::system((command + " > /dev/null 2>&1").c_str()); }

struct Case {
  std::string name, text, preset;
  // Sizes left as arguments: the bundle is exported at the header's sizes and run on
  // `run_sizes`, which it was not specialised to.
  bool symbolic = false;
  SizeMap run_sizes = {};
  // Input shapes the kernel refuses (symbolic sizes): the example must fail, writing nothing.
  std::map<std::string, std::vector<int64_t>> refused = {};
  // Temporaries the build keeps in local buffers: the header says they are unused.
  std::vector<std::string> local = {};
};

class Export : public ::testing::TestWithParam<Case> {};

TEST_P(Export, BuildsInAForeignProjectAndMatchesTheInterpreter) {
  const Case& c = GetParam();
  auto setup = kernel_setup(check_source(c.name + ".tc", c.text), {});
  ASSERT_TRUE(setup) << setup.error();
  auto options = kernel_options(*setup->def, {c.preset, ""});
  ASSERT_TRUE(options) << options.error();
  ExportSettings settings;
  settings.symbolic_sizes = c.symbolic;
  auto bundle = export_bundle(*setup, *options, settings);
  ASSERT_TRUE(bundle) << bundle.error();
  DefShapes shapes = setup->shapes;
  if (c.symbolic) {
    auto moved = shapes_evaluate(*setup->def, c.run_sizes);
    ASSERT_TRUE(moved) << moved.error();
    shapes = *moved;
  }

  fs::path root = fs::temp_directory_path() / ("tcs_export_" + c.name + "_" + std::to_string(::getpid()));
  fs::remove_all(root);
  ASSERT_TRUE(bundle_write(*bundle, (root / "consumer" / "kernel").string()));
  // The user's project: the bundle in a folder of its own, the example as the user's program.
  std::ofstream(root / "consumer" / "CMakeLists.txt")
      << "cmake_minimum_required(VERSION 3.16)\nproject(consumer C)\nadd_subdirectory(kernel)\n"
      << "add_executable(app kernel/example.c)\ntarget_link_libraries(app PRIVATE " << bundle->kernel << ")\n";

  auto inputs = random_inputs(*setup->def, shapes, 5);
  ASSERT_TRUE(inputs) << inputs.error();
  fs::create_directories(root / "in");
  for (const auto& [name, t] : *inputs) ASSERT_TRUE(npy_write((root / "in" / (name + ".npy")).string(), t));
  auto want = interpret(*setup->def, shapes, *inputs);
  ASSERT_TRUE(want) << want.error();

  for (bool object : {false, true}) {
    SCOPED_TRACE(object ? "object variant" : "C variant");
    fs::path build = root / (object ? "build-object" : "build-c"), out = root / (object ? "out-object" : "out-c");
    fs::create_directories(out);
    std::string configure = "cmake -S " + (root / "consumer").string() + " -B " + build.string() +
                            " -G Ninja -DCMAKE_BUILD_TYPE=Release -D" + bundle->kernel + "_USE_OBJECT=" + (object ? "ON" : "OFF");
    ASSERT_EQ(run(configure), 0) << configure;
    ASSERT_EQ(run("cmake --build " + build.string()), 0) << "build failed in " << build;
    ASSERT_EQ(run((build / "app").string() + " " + (root / "in").string() + " " + out.string()), 0);
    for (const auto& [name, w] : *want) {
      auto got = npy_read((out / (name + ".npy")).string());
      ASSERT_TRUE(got) << got.error();
      TensorComparison cmp = compare_tensors(name, *got, w);
      EXPECT_TRUE(cmp.ok) << cmp.problem;
    }
  }
  if (!c.refused.empty()) {
    fs::create_directories(root / "bad");
    for (const auto& [name, shape] : c.refused) {
      int t = setup->def->find_tensor(name);
      auto z = Tensor::zeros(setup->def->tensors[size_t(t)].type, shape);
      ASSERT_TRUE(z) << z.error();
      ASSERT_TRUE(npy_write((root / "bad" / (name + ".npy")).string(), *z));
    }
    fs::create_directories(root / "out-bad");
    EXPECT_NE(run((root / "build-c" / "app").string() + " " + (root / "bad").string() + " " + (root / "out-bad").string()), 0);
    EXPECT_TRUE(fs::is_empty(root / "out-bad"));
  }
  // The README names the files; the header documents every tensor.
  std::string header = read_text(root / "consumer" / "kernel" / (bundle->kernel + ".h"));
  for (const SemaTensor& t : setup->def->tensors) {
    size_t line = header.find(" " + t.name + "  ");
    ASSERT_NE(line, std::string::npos) << t.name;
    bool unused = header.substr(line, header.find('\n', line) - line).find("unused") != std::string::npos;
    EXPECT_EQ(unused, std::find(c.local.begin(), c.local.end(), t.name) != c.local.end()) << t.name << "\n" << header;
  }
  fs::remove_all(root);
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, Export,
    ::testing::Values(
        // A packed, register-tiled contraction (the default preset for matmul).
        Case{"matmul", "# sizes: M=40 N=72 K=24\ndef matmul(float(M,K) A, float(K,N) B) -> (C) {\n  C(m,n) +=! A(m,k) * B(k,n)\n}\n",
             "default"},
        // Temporaries, a max and a sum reduction, exp.
        Case{"softmax",
             "# sizes: N=8 D=20\ndef softmax(float(N,D) X) -> (Y) {\n  mx(n) max=! X(n,d)\n  ex(n,d) = exp(X(n,d) - mx(n))\n"
             "  sm(n) +=! ex(n,d)\n  Y(n,d) = ex(n,d) / sm(n)\n}\n",
             "default", false, {}, {}, {"mx", "ex", "sm"}},
        // Builtins libm lacks (the bundle defines them), integers and a gather.
        Case{"special",
             "# sizes: N=16 V=10\ndef special(float(N) X, int32(N) I, float(V) T) -> (O, Q) {\n"
             "  O(i) = normcdf(X(i)) + erfinv(X(i) * 0.5) + rsqrt(X(i) * X(i) + 1.0)\n  Q(i) = T(I(i)) * 2.0\n}\n",
             "naive"},
        // sin and cos beyond 2^30 call the reference from vector loops (LlvmTrig.cpp):
        // the object's builtins take the bundle's prefix after the vectoriser found them.
        Case{"trig", "# sizes: N=64\ndef trig(float(N) X) -> (Y) {\n  Y(i) = sin(X(i) * 3.0e9) + cos(X(i))\n}\n", "default"},
        // Sizes as arguments: run on sizes other than the ones the tiles were chosen for,
        // with the outputs' shapes computed from them (W - K + 1) and refused sizes.
        Case{"matmul_symbolic",
             "# sizes: M=40 N=72 K=24\ndef matmul(float(M,K) A, float(K,N) B) -> (C) {\n  C(m,n) +=! A(m,k) * B(k,n)\n}\n",
             "default", true, {{"M", 45}, {"N", 70}, {"K", 31}}},
        Case{"conv1d_symbolic",
             "# sizes: N=3 W=20 K=5\ndef conv1d(float(N,W) I, float(K) F) -> (O) {\n  O(n,x) +=! I(n, x + k) * F(k)\n}\n",
             "default", true, {{"N", 2}, {"W", 33}, {"K", 4}}, {{"I", {2, 3}}, {"F", {5}}}},
        // A total in parts on the threads (loopnest/SplitTotals.cpp), at its sizes and on
        // sizes with fewer iterations than parts.
        Case{"total", "# sizes: N=300 C=500\ndef total(float(N,C) X) -> (S) {\n  S +=! X(n,c) * X(n,c)\n}\n", "default"},
        Case{"total_symbolic", "# sizes: N=300 C=500\ndef total(float(N,C) X) -> (S) {\n  S +=! X(n,c) * X(n,c)\n}\n",
             "default", true, {{"N", 3}, {"C", 5}}},
        Case{"softmax_symbolic",
             "# sizes: N=8 D=20\ndef softmax(float(N,D) X) -> (Y) {\n  mx(n) max=! X(n,d)\n  ex(n,d) = exp(X(n,d) - mx(n))\n"
             "  sm(n) +=! ex(n,d)\n  Y(n,d) = ex(n,d) / sm(n)\n}\n",
             "default", true, {{"N", 5}, {"D", 41}}}),
    [](const auto& info) { return info.param.name; });

// The object's loops of sin and cos are vector code, as the JIT's are: its builtins must
// keep their names through the vectoriser, which finds their vector variants by them.
// (The symbols had taken the bundle's prefix before O3, and the loop stayed scalar.)
TEST(ExportObject, TrigonometryLoopsAreVectorsInTheObject) {
  if (run("objdump --version") != 0) GTEST_SKIP() << "no objdump here";
  auto setup = kernel_setup(check_source("trig.tc", "# sizes: N=4096\ndef trig(float(N) X) -> (Y) {\n  Y(i) = sin(X(i))\n}\n"), {});
  ASSERT_TRUE(setup) << setup.error();
  auto options = kernel_options(*setup->def, {"default", ""});
  ASSERT_TRUE(options) << options.error();
  auto bundle = export_bundle(*setup, *options, ExportSettings{});
  ASSERT_TRUE(bundle) << bundle.error();
  fs::path dir = fs::temp_directory_path() / ("tcs_export_trig_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ASSERT_TRUE(bundle_write(*bundle, dir.string()));
  ASSERT_EQ(std::system(("objdump -d " + (dir / (bundle->kernel + ".o")).string() + " > " + (dir / "dis").string()).c_str()), 0);
  std::string dis = read_text(dir / "dis");
  // sin is computed in double: packed double multiply-adds (scalar ones end in "sd").
  EXPECT_TRUE(std::regex_search(dis, std::regex("vfmadd[0-9]+pd"))) << "no packed double FMA in the object";
  fs::remove_all(dir);
}

// Whether this machine's CPU lists a /proc/cpuinfo flag.
bool cpu_has_flag(const std::string& flag) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("flags", 0) == 0) return (line + " ").find(" " + flag + " ") != std::string::npos;
  return false;
}

// Left to its default, the bundle links the object where the machine building it can run
// it (an export for this machine) and builds from the C where it cannot (an export for a
// CPU with an extension this one lacks), and configuring says which.
TEST(ExportDefault, TheObjectIsLinkedWhereItRunsAndTheCOtherwise) {
  const char* text = "# sizes: M=16 N=16 K=16\ndef matmul(float(M,K) A, float(K,N) B) -> (C) {\n  C(m,n) +=! A(m,k) * B(k,n)\n}\n";
  auto setup = kernel_setup(check_source("matmul.tc", text), {});
  ASSERT_TRUE(setup) << setup.error();
  auto options = kernel_options(*setup->def, {"default", ""});
  ASSERT_TRUE(options) << options.error();
  // A CPU with an extension this machine lacks: the LLVM CPU, the extension's name (LLVM's),
  // and for /proc/cpuinfo.
  struct Foreign {
    const char *cpu, *feature, *flag;
  };
  std::optional<Foreign> foreign;
  for (Foreign f : {Foreign{"sapphirerapids", "avx512fp16", "avx512_fp16"}, Foreign{"bdver4", "fma4", "fma4"}})
    if (!foreign && !cpu_has_flag(f.flag)) foreign = f;

  fs::path root = fs::temp_directory_path() / ("tcs_export_default_" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto export_and_build = [&](const std::string& cpu, std::string& log) {
    ExportSettings settings;
    settings.cpu = cpu;
    auto bundle = export_bundle(*setup, *options, settings);
    if (!bundle) return ::testing::AssertionFailure() << bundle.error();
    fs::path dir = root / cpu, build = root / (cpu + "-build");
    if (!bundle_write(*bundle, dir.string())) return ::testing::AssertionFailure() << "cannot write " << dir;
    std::string command = "cmake -S " + dir.string() + " -B " + build.string() + " -G Ninja -DCMAKE_BUILD_TYPE=Release > " +
                          (root / "log").string() + " 2>&1";
    int rc = std::system(command.c_str());
    log = read_text(root / "log");
    if (rc != 0) return ::testing::AssertionFailure() << command << "\n" << log;
    if (run("cmake --build " + build.string()) != 0) return ::testing::AssertionFailure() << "build failed in " << build;
    return ::testing::AssertionSuccess();
  };
  std::string log;
  ASSERT_TRUE(export_and_build("host", log));
  EXPECT_NE(log.find("matmul: linking matmul.o"), std::string::npos) << log;
  if (foreign) {
    SCOPED_TRACE(foreign->cpu);
    ASSERT_TRUE(export_and_build(foreign->cpu, log));
    EXPECT_NE(log.find("matmul: building from matmul.c"), std::string::npos) << log;
    std::string test = "/* " + std::string(foreign->feature) + " */";
    EXPECT_NE(read_text(root / foreign->cpu / "CMakeLists.txt").find(test), std::string::npos) << test;
  } else {
    std::printf("[  SKIPPED ] the C half: this CPU has every extension of the foreign CPUs tried\n");
  }
  fs::remove_all(root);
}

// The build's CPU test (cpu_check_program), compiled by the C compiler and run here, says
// for every extension of codegen/X86Extensions.h what the kernel says in /proc/cpuinfo:
// the leaf, register and bit of each are right, and the register state is checked.
TEST(ExportCpuCheck, EachExtensionAgreesWithProcCpuinfo) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "cpuid is an x86 instruction";
#endif
  if (!std::ifstream("/proc/cpuinfo")) GTEST_SKIP() << "no /proc/cpuinfo to compare with";
  if (run("cc --version") != 0) GTEST_SKIP() << "no C compiler 'cc'";
  struct Flag {
    const char *feature, *flag;
    // Newer than some kernels' flag lists, or left out of them by a hypervisor (one lists no
    // abm though cpuid reports lzcnt): only a listed flag is compared.
    bool kernel_may_not_know;
  };
  const Flag flags[] = {
      {"popcnt", "popcnt", false},          {"ssse3", "ssse3", false},
      {"sse4.1", "sse4_1", false},          {"sse4.2", "sse4_2", false},
      {"movbe", "movbe", false},            {"avx", "avx", false},
      {"fma", "fma", false},                {"f16c", "f16c", false},
      {"avx2", "avx2", false},              {"bmi", "bmi1", false},
      {"bmi2", "bmi2", false},              {"lzcnt", "abm", true},
      {"fma4", "fma4", false},              {"xop", "xop", false},
      {"avxvnni", "avx_vnni", true},        {"avxifma", "avx_ifma", true},
      {"avxvnniint8", "avx_vnni_int8", true}, {"avx512f", "avx512f", false},
      {"avx512dq", "avx512dq", false},      {"avx512ifma", "avx512ifma", false},
      {"avx512cd", "avx512cd", false},      {"avx512bw", "avx512bw", false},
      {"avx512vl", "avx512vl", false},      {"avx512vbmi", "avx512vbmi", false},
      {"avx512vbmi2", "avx512_vbmi2", false}, {"gfni", "gfni", false},
      {"vpclmulqdq", "vpclmulqdq", false},  {"avx512vnni", "avx512_vnni", false},
      {"avx512bitalg", "avx512_bitalg", false}, {"avx512vpopcntdq", "avx512_vpopcntdq", false},
      {"avx512fp16", "avx512_fp16", true},  {"avx512bf16", "avx512_bf16", true}};
  fs::path dir = fs::temp_directory_path() / ("tcs_cpu_check_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const X86Extension& e : kX86Extensions) {
    auto f = std::find_if(std::begin(flags), std::end(flags), [&](const Flag& x) { return x.feature == e.name; });
    ASSERT_NE(f, std::end(flags)) << e.name << " has no /proc/cpuinfo flag in this test";
    std::ofstream(dir / "check.c") << cpu_check_program({std::string(e.name)});
    ASSERT_EQ(run("cc -O1 -o " + (dir / "check").string() + " " + (dir / "check.c").string()), 0) << e.name;
    bool has = std::system((dir / "check").string().c_str()) == 0;
    bool listed = cpu_has_flag(f->flag);
    if (listed || !f->kernel_may_not_know) {
      EXPECT_EQ(has, listed) << e.name << " (/proc/cpuinfo: " << f->flag << ")";
    }
  }
  std::ofstream(dir / "check.c") << cpu_check_program({});
  ASSERT_EQ(run("cc -O1 -o " + (dir / "check").string() + " " + (dir / "check.c").string()), 0);
  EXPECT_EQ(std::system((dir / "check").string().c_str()), 0) << "no extensions: nothing to lack";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tcs
