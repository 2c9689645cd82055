#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/Commands.h"
#include "cli/KernelSetup.h"
#include "runtime/Npy.h"
#include "runtime/RandomInputs.h"
#include "support/Json.h"

namespace tcs::cli {

static const char* kRunHelp = R"(usage: tcstudio-cli run FILE.tc [--entry NAME] [--size NAME=INT ...]
                       [--input NAME=FILE.npy ...] [--random[=SEED]]
                       [--output NAME=FILE.npy ...] [--json]

Evaluates a def with the reference interpreter and prints a summary of every output.

  --input NAME=FILE.npy   an input tensor; an output may be supplied too, for statements
                          that accumulate into it with op= (without '!')
  --random[=SEED]         draw every input not supplied, seeded (default seed 0): floats in
                          [-1, 1), integer tensors used as subscripts within bounds
  --output NAME=FILE.npy  write an output to a .npy file
  --json                  {"entry","sizes","outputs":[{"name","type","shape","min","max",
                          "mean","first"}],"elapsed_ms"}
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

}  // namespace

int command_run(const std::vector<std::string>& argv) {
  auto parsed = parse_command(argv,
                              {{"entry", true},
                               {"size", true, true},
                               {"input", true, true},
                               {"output", true, true},
                               {"random", true, false, true},
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

  auto setup = kernel_setup(args, "run");
  if (auto* code = std::get_if<int>(&setup)) return *code;
  KernelSetup& k = std::get<KernelSetup>(setup);
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
  auto start = std::chrono::steady_clock::now();
  auto outputs = interpret(def, k.shapes, inputs);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!outputs) {
    std::cerr << "error: " << outputs.error() << "\n";
    return kUserError;
  }
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
    w.end_object();
    std::cout << w.str() << "\n";
    return kSuccess;
  }
  std::cout << "def " << def.name << "  (" << sizes_describe(def, k.shapes.sizes) << ")  interpreted in " << number(ms)
            << " ms\n";
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
  for (const auto& [name, file] : writes) std::cout << "  wrote " << name << " to " << file << "\n";
  return kSuccess;
}

}  // namespace tcs::cli
