#include "BenchCompile.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "Compiler.h"
#include "codegen/CpuKernel.h"
#include "lang/Frontend.h"

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
  std::string text = read_example(example);
  checked_ = tcs::check_source(example, text);
  if (checked_->has_errors() || checked_->defs.size() != 1) fail(example + " does not check as one def");
  def_ = &checked_->defs[0];
  tcs::SizeMap bound = tcs::sizes_from_header(text);
  for (const auto& [k, v] : sizes) bound[k] = v;
  auto shapes = tcs::shapes_evaluate(*def_, bound);
  if (!shapes) fail(example + ": " + shapes.error());
  shapes_ = std::make_unique<tcs::DefShapes>(std::move(*shapes));
}

BenchDef::~BenchDef() = default;

static std::shared_ptr<tcs::CpuKernel> build(const tcs::SemaDef& def, const tcs::DefShapes& shapes, tcs::MappingOptions o) {
  tcs::CompileRequest req;
  req.def = &def;
  req.shapes = &shapes;
  req.options = std::move(o);
  req.build_kernel = true;
  auto r = tcs::compile(req);
  if (!r) fail("compile of " + def.name + " failed: " + r.error());
  return r->kernel;
}

std::shared_ptr<tcs::CpuKernel> BenchDef::compile_preset(const std::string& preset) const {
  auto o = tcs::mapping_preset(preset, *def_);
  if (!o) fail(o.error());
  return build(*def_, *shapes_, *o);
}

std::shared_ptr<tcs::CpuKernel> BenchDef::compile_json(const std::string& json) const {
  auto o = tcs::mapping_options_from_json(json);
  if (!o) fail("options " + json + ": " + o.error());
  return build(*def_, *shapes_, *o);
}

std::array<int, 3> BenchDef::order(const std::string& a, const std::string& b, const std::string& c) const {
  return {def_->find_tensor(a), def_->find_tensor(b), def_->find_tensor(c)};
}

std::vector<CompileTiming> measure_compile_times(int repeats) {
  std::string text = read_example("matmul.tc");
  auto checked = tcs::check_source("matmul.tc", text);
  const tcs::SemaDef& def = checked->defs[0];
  std::vector<CompileTiming> out;
  for (bool large : {false, true}) {
    tcs::SizeMap sizes = tcs::sizes_from_header(text);
    if (large) sizes = {{"M", 1024}, {"N", 1024}, {"K", 1024}};
    auto shapes = tcs::shapes_evaluate(def, sizes);
    if (!shapes) fail(shapes.error());
    for (bool kernel : {false, true}) {
      tcs::CompileRequest req;
      req.def = &def;
      req.shapes = &*shapes;
      req.options = *tcs::mapping_preset("default", def);
      req.build_kernel = kernel;
      std::vector<double> ms;
      for (int i = 0; i < repeats + 1; ++i) {  // the first one warms up LLVM
        auto t0 = std::chrono::steady_clock::now();
        auto r = tcs::compile(req);
        if (!r) fail("compile failed: " + r.error());
        if (i) ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(ms.begin(), ms.end());
      std::string what = std::string(kernel ? "schedule + O3 + JIT" : "schedule + C text") +
                         (large ? ", M=N=K=1024" : ", header sizes");
      out.push_back({what, ms[ms.size() / 2]});
    }
  }
  return out;
}
