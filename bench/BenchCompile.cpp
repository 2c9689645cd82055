#include "BenchCompile.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "Compiler.h"
#include "codegen/CpuKernel.h"
#include "runtime/Timing.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "bench_cpu: %s\n", what.c_str());
  std::exit(2);
}

std::string read_example(const std::string& name) {
  std::ifstream in(std::string(TCS_EXAMPLES_DIR) + "/" + name);
  if (!in) fail("cannot read example " + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

BenchDef::BenchDef(const std::string& example, const std::map<std::string, int64_t>& sizes) {
  tcs::KernelSpec spec;
  spec.sizes = tcs::SizeMap(sizes.begin(), sizes.end());
  auto setup = tcs::kernel_setup(tcs::check_source(example, read_example(example)), spec);
  if (!setup) fail(example + ": " + setup.error());
  setup_ = std::make_unique<tcs::KernelSetup>(std::move(*setup));
}

BenchDef::~BenchDef() = default;

static std::shared_ptr<tcs::CpuKernel> build(const tcs::KernelSetup& setup, const tcs::OptionsChoice& choice) {
  auto options = tcs::kernel_options(*setup.def, choice);
  if (!options) fail(options.error());
  auto r = tcs::compile_kernel(setup, *options, tcs::CodegenChoice{"cpu", {}, true});
  if (!r) fail("compile of " + setup.def->name + " failed: " + r.error());
  return std::dynamic_pointer_cast<tcs::CpuKernel>(r->kernel);
}

std::shared_ptr<tcs::CpuKernel> BenchDef::compile_preset(const std::string& preset) const {
  return build(*setup_, tcs::OptionsChoice{preset, ""});
}

std::shared_ptr<tcs::CpuKernel> BenchDef::compile_json(const std::string& json) const {
  return build(*setup_, tcs::OptionsChoice{"default", json});
}

std::array<int, 3> BenchDef::order(const std::string& a, const std::string& b, const std::string& c) const {
  return {setup_->def->find_tensor(a), setup_->def->find_tensor(b), setup_->def->find_tensor(c)};
}

std::vector<CompileTiming> measure_compile_times(int repeats) {
  std::vector<CompileTiming> out;
  for (bool large : {false, true}) {
    tcs::KernelSpec spec;
    if (large) spec.sizes = {{"M", 1024}, {"N", 1024}, {"K", 1024}};
    auto setup = tcs::kernel_setup(tcs::check_source("matmul.tc", read_example("matmul.tc")), spec);
    if (!setup) fail(setup.error());
    auto options = tcs::kernel_options(*setup->def, {});
    if (!options) fail(options.error());
    for (bool kernel : {false, true}) {
      tcs::CodegenChoice choice{"cpu", {"c"}, kernel};
      tcs::TimingPlan plan{.warmup_calls = 1, .min_calls = repeats};  // the warm-up starts LLVM
      auto timing = tcs::time_calls([&](size_t) -> tcs::Status {
        auto r = tcs::compile_kernel(*setup, *options, choice);
        if (!r) return r.failure();
        return tcs::success();
      }, plan);
      if (!timing) fail("compile failed: " + timing.error());
      std::string what = std::string(kernel ? "schedule + O3 + JIT" : "schedule + C text") +
                         (large ? ", M=N=K=1024" : ", header sizes");
      out.push_back({what, timing->median_ms});
    }
  }
  return out;
}
