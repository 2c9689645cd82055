#include "BenchCompile.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "Compiler.h"
#include "kernel/KernelSetup.h"
#include "loopnest/LoopNest.h"
#include "options/MappingOptions.h"
#include "poly/Lowering.h"
#include "targets/Target.h"
#include "codegen/CpuKernel.h"
#include "runtime/Timing.h"
#include "tuner/BestOptions.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "bench_cpu: %s\n", what.c_str());
  std::exit(2);
}

std::string read_example(const std::string& name, const std::string& dir = TCS_EXAMPLES_DIR) {
  std::ifstream in(dir + "/" + name);
  if (!in) fail("cannot read example " + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

BenchDef::BenchDef(const std::string& dir, const std::string& file, const std::map<std::string, int64_t>& sizes) {
  tcs::KernelSpec spec;
  spec.sizes = tcs::SizeMap(sizes.begin(), sizes.end());
  auto setup = tcs::kernel_setup(tcs::check_source(file, read_example(file, dir)), spec);
  if (!setup) fail(file + ": " + setup.error());
  setup_ = std::make_unique<tcs::KernelSetup>(std::move(*setup));
}

BenchDef::~BenchDef() = default;

static std::shared_ptr<tcs::CpuKernel> build(const tcs::KernelSetup& setup, const tcs::OptionsChoice& choice,
                                             std::string* error) {
  auto options = tcs::kernel_options(*setup.def, choice, &setup.shapes);
  if (!options) return *error = options.error(), nullptr;
  auto r = tcs::compile_kernel(setup, *options, tcs::CodegenChoice{"cpu", {}, true});
  if (!r) return *error = "compile of " + setup.def->name + " failed: " + r.error(), nullptr;
  return std::dynamic_pointer_cast<tcs::CpuKernel>(r->kernel);
}

std::shared_ptr<tcs::CpuKernel> BenchDef::compile_preset(const std::string& preset) const {
  std::string error;
  auto k = build(*setup_, tcs::OptionsChoice{preset, ""}, &error);
  if (!k) fail(error);
  return k;
}

std::shared_ptr<tcs::CpuKernel> BenchDef::compile_json(const std::string& json, std::string* error) const {
  return build(*setup_, tcs::OptionsChoice{"default", json}, error);
}

std::string BenchDef::tuned_json(const std::string& db, int threads, std::string* note) const {
  auto best = tcs::tuner::best_options(db, *setup_, threads, /*cold=*/true);
  if (!best) return *note = best.error(), std::string();
  *note = best->note;
  return best->record ? best->record->options_json : std::string();
}

bool BenchDef::same_program(const std::string& a, const std::string& b) const {
  auto key = [&](const std::string& json) -> std::string {
    auto options = tcs::kernel_options(*setup_->def, tcs::OptionsChoice{"default", json}, &setup_->shapes);
    if (!options) return "";
    auto lowered = tcs::lower_to_loop_nest(*setup_->def, setup_->shapes, *options, tcs::find_target("cpu")->mapping_passes);
    return lowered ? tcs::program_key(lowered->nest) : "";
  };
  std::string x = key(a);
  return !x.empty() && x == key(b);
}

std::string BenchDef::default_json() const {
  auto options = tcs::kernel_options(*setup_->def, tcs::OptionsChoice{"default", ""}, &setup_->shapes);
  if (!options) fail(options.error());
  return tcs::mapping_options_to_json(*options);
}

std::vector<std::pair<std::string, int64_t>> BenchDef::buffers() const {
  std::vector<std::pair<std::string, int64_t>> out;
  for (size_t i = 0; i < setup_->def->tensors.size(); ++i)
    out.push_back({setup_->def->tensors[i].name, setup_->shapes.tensors[i].numel()});
  return out;
}

std::vector<CompileTiming> measure_compile_times(int repeats) {
  std::vector<CompileTiming> out;
  for (bool large : {false, true}) {
    tcs::KernelSpec spec;
    if (large) spec.sizes = {{"M", 1024}, {"N", 1024}, {"K", 1024}};
    auto setup = tcs::kernel_setup(tcs::check_source("matmul.tc", read_example("matmul.tc")), spec);
    if (!setup) fail(setup.error());
    auto options = tcs::kernel_options(*setup->def, {}, &setup->shapes);
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
