#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <thread>

#include "Compiler.h"
#include "cli/Commands.h"
#include "cli/KernelSetup.h"
#include "kernel/Measure.h"
#include "runtime/Compare.h"
#include "runtime/Npy.h"
#include "runtime/RandomInputs.h"
#include "support/Json.h"

namespace tcs::cli {

static const char* kRunHelp = R"(usage: tcstudio-cli run FILE.tc [--entry NAME] [--size NAME=INT ...]
                       [--input NAME=FILE.npy ...] [--random[=SEED]]
                       [--target cpu|interp]
                       [--options FILE.json | --preset NAME | --best [--db PATH]]
                       [--check] [--repeat N [--cold]] [--threads N]
                       [--output NAME=FILE.npy ...] [--json]

Runs a def: compiled for this CPU (the default), or with the reference interpreter.

  --input NAME=FILE.npy   an input tensor; an output may be supplied too, for statements
                          that accumulate into it with op= (without '!')
  --random[=SEED]         draw every input not supplied, seeded (default seed 0): floats in
                          [-1, 1), integer tensors used as subscripts within bounds
  --target cpu|interp     the compiled kernel (default) or the reference interpreter
  --options, --preset     mapping options for the compiled kernel (default preset: default)
  --best                  the tuned options of this kernel and sizes on this machine from
                          the tuning cache (--db PATH, default ~/.local/share/tcstudio/
                          cache.sqlite); says on stderr which record it used, or that it
                          used the default preset; with --cold, a record tuned with cold
                          caches (tune --cold) first
  --check                 also run the interpreter on the same inputs and compare every
                          output (error bound per element type; NaN passes only where the
                          interpreter has NaN too); prints
                          the worst element and exits 1 on a mismatch
  --repeat N              time N more runs after a warm-up and print the median time and
                          GFLOP/s: the kernel alone, on buffers prepared beforehand (the
                          same routine as the IDE's Run panel and the benchmarks)
  --cold                  with --repeat: rotate copies of the buffers (64 MiB in all) so
                          every timed run starts with cold caches, as bench_cpu does
  --threads N             threads for parallel loops (default: all cores)
  --output NAME=FILE.npy  write an output to a .npy file
  --json                  {"entry","target","sizes","outputs":[{"name","type","shape","min",
                          "max","mean","nan_count","first"}],"elapsed_ms","median_ms",
                          "gflops","max_rel_error","check"}
)";

namespace {

struct Summary {
  double min = INFINITY, max = -INFINITY, mean = 0;
  int64_t nan = 0;
};

Summary summarize(const Tensor& t) {
  Summary s;
  double sum = 0;
  int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    double v = t.get_as_double(i);
    if (std::isnan(v)) { ++s.nan; continue; }
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    sum += v;
  }
  s.mean = n > s.nan ? sum / double(n - s.nan) : NAN;
  return s;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::optional<int64_t> positive_int(const std::string& s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 1) return std::nullopt;
  return v;
}


}  // namespace

int command_run(const std::vector<std::string>& argv) {
  auto parsed = parse_command(argv,
                              {{"entry", true},
                               {"size", true, true},
                               {"input", true, true},
                               {"output", true, true},
                               {"random", true, false, true},
                               {"target", true},
                               {"options", true},
                               {"preset", true},
                               {"best", false},
                               {"db", true},
                               {"check", false},
                               {"repeat", true},
                               {"threads", true},
                               {"cold", false},
                               {"json", false}},
                              "run", kRunHelp);
  if (auto* code = std::get_if<int>(&parsed)) return *code;
  const ParsedArgs& args = std::get<ParsedArgs>(parsed);
  std::vector<std::pair<std::string, std::string>> writes;
  for (const std::string& s : args.all("output")) {
    auto kv = split_assignment(s);
    if (!kv || kv->second.empty()) {
      std::cerr << "tcstudio-cli run: --output takes NAME=FILE.npy, not '" << s << "'\n";
      return kUsageError;
    }
    writes.push_back(*kv);
  }
  uint64_t seed = 0;
  if (auto r = args.get("random"); r && !r->empty()) {
    auto [p, ec] = std::from_chars(r->data(), r->data() + r->size(), seed);
    if (ec != std::errc() || p != r->data() + r->size()) {
      std::cerr << "tcstudio-cli run: --random takes an unsigned integer seed, not '" << *r << "'\n";
      return kUsageError;
    }
  }
  std::string target = args.get("target").value_or("cpu");
  if (target != "cpu" && target != "interp") {
    std::cerr << "tcstudio-cli run: --target takes cpu or interp, not '" << target << "'\n";
    return kUsageError;
  }
  int64_t repeat = 0, threads = std::max(1u, std::thread::hardware_concurrency());
  if (auto r = args.get("repeat")) {
    auto v = positive_int(*r);
    if (!v || *v > 1000000) {
      std::cerr << "tcstudio-cli run: --repeat takes a count from 1 to 1000000, not '" << *r << "'\n";
      return kUsageError;
    }
    repeat = *v;
  }
  if (auto r = args.get("threads")) {
    auto v = positive_int(*r);
    if (!v || *v > 1024) {
      std::cerr << "tcstudio-cli run: --threads takes a count from 1 to 1024, not '" << *r << "'\n";
      return kUsageError;
    }
    threads = *v;
  }

  auto setup = kernel_setup(args, "run");
  if (auto* code = std::get_if<int>(&setup)) return *code;
  CliKernel& k = std::get<CliKernel>(setup);
  const SemaDef& def = *k.def;
  for (const auto& [name, file] : writes) {
    int t = def.find_tensor(name);
    if (t < 0 || def.tensors[size_t(t)].role != TensorRole::Output) {
      std::cerr << "error: --output " << name << ": '" << def.name << "' has no output named '" << name << "'\n";
      return kUserError;
    }
  }
  TensorMap inputs = k.supplied;
  if (args.has("random")) {
    auto drawn = random_inputs(def, k.shapes, seed, inputs);
    if (!drawn) {
      std::cerr << "error: " << drawn.error() << "\n";
      return kUserError;
    }
    for (auto& [n, t] : *drawn) inputs[n] = std::move(t);
  }
  for (const SemaTensor& T : def.tensors) {
    if (T.role == TensorRole::Input && !inputs.count(T.name)) {
      std::cerr << "error: input '" << T.name << "' is missing; pass --input " << T.name << "=FILE.npy or --random\n";
      return kUserError;
    }
  }

  // The kernel to run: the interpreter, or the compiled one.
  std::shared_ptr<Kernel> kernel;
  if (target == "cpu") {
    auto options = mapping_options_from_args(args, k);
    if (auto* code = std::get_if<int>(&options)) return *code;
    auto compiled = compile_kernel(k, std::get<MappingOptions>(options), CodegenChoice{"cpu", {}, true});
    if (!compiled) {
      std::cerr << "error: " << compiled.error() << "\n";
      return kUserError;
    }
    kernel = compiled->kernel;
    kernel->set_threads(int(threads));
  } else {
    kernel = interpreter_kernel(def, k.shapes);
  }
  MeasureRequest mr;
  mr.plan = TimingPlan{.warmup_calls = 1, .min_calls = int(repeat), .max_calls = int(repeat)};
  mr.cold_caches = args.has("cold");
  mr.check = args.has("check") && target == "cpu";
  auto measured = measure_kernel(*kernel, inputs, mr);
  if (!measured) {
    std::cerr << "error: " << measured.error() << "\n";
    return kUserError;
  }
  const TensorMap* outputs = &measured->outputs;
  double ms = measured->first_ms;
  double median_ms = repeat ? measured->timing.median_ms : ms;
  double gflops = measured->gflops;
  bool checked = measured->checked, check_ok = measured->check_ok;
  double max_rel_error = measured->max_error;
  const std::vector<TensorComparison>& comparisons = measured->comparisons;
  for (const auto& [name, file] : writes) {
    auto st = npy_write(file, outputs->at(name));
    if (!st) {
      std::cerr << "error: " << st.error() << "\n";
      return kUserError;
    }
  }
  if (args.has("json")) {
    JsonWriter w;
    w.begin_object();
    w.field("entry", def.name);
    w.field("target", target);
    w.key("sizes");
    w.begin_object();
    for (const auto& [n, v] : k.shapes.sizes) w.field(n, v);
    w.end_object();
    w.key("outputs");
    w.begin_array();
    for (const auto& [name, t] : *outputs) {
      Summary s = summarize(t);
      w.begin_object();
      w.field("name", name);
      w.field("type", scalar_type_name(t.dtype));
      w.key("shape");
      w.begin_array();
      for (int64_t e : t.shape) w.value(e);
      w.end_array();
      w.field("min", s.min);
      w.field("max", s.max);
      w.field("mean", s.mean);
      w.field("nan_count", s.nan);
      w.key("first");
      w.begin_array();
      for (int64_t i = 0; i < std::min<int64_t>(8, t.numel()); ++i) w.value(t.get_as_double(i));
      w.end_array();
      w.end_object();
    }
    w.end_array();
    w.field("elapsed_ms", ms);
    w.field("median_ms", median_ms);
    w.field("gflops", gflops);
    if (checked) {
      w.field("max_rel_error", max_rel_error);
      w.field("check", check_ok ? "pass" : "fail");
    }
    w.end_object();
    std::cout << w.str() << "\n";
  } else {
    std::cout << "def " << def.name << "  (" << sizes_describe(def, k.shapes.sizes) << ")  "
              << (target == "cpu" ? "compiled for the CPU, " + std::to_string(threads) + " thread" + (threads > 1 ? "s" : "")
                         : std::string("interpreted"))
              << "\n";
    for (const auto& [name, t] : *outputs) {
      Summary s = summarize(t);
      std::cout << "  " << name << "  " << tensor_describe(t) << "  min " << number(s.min) << "  max " << number(s.max)
                << "  mean " << number(s.mean);
      if (s.nan) std::cout << "  (" << s.nan << " NaN)";
      std::cout << "\n    ";
      for (int64_t i = 0; i < std::min<int64_t>(8, t.numel()); ++i) std::cout << number(t.get_as_double(i)) << " ";
      if (t.numel() > 8) std::cout << "...";
      std::cout << "\n";
    }
    if (repeat)
      std::cout << "  median " << number(median_ms) << " ms over " << repeat << " runs, " << number(gflops) << " GFLOP/s\n";
    else
      std::cout << "  " << number(ms) << " ms\n";
    for (const TensorComparison& c : comparisons)
      std::cout << "  check: " << (c.ok ? "ok, max error " + number(c.max_error) + " (bound " + number(c.bound) + ")" : c.problem)
                << "\n";
    for (const auto& [name, file] : writes) std::cout << "  wrote " << name << " to " << file << "\n";
  }
  if (checked && !check_ok) {
    for (const TensorComparison& c : comparisons)
      if (!c.ok) std::cerr << "error: check failed: " << c.problem << "\n";
    return kUserError;
  }
  return kSuccess;
}

}  // namespace tcs::cli
