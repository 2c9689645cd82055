// libFuzzer target over the whole front end: lexer, parser, sema and range inference, the
// diagnostic printers, size binding and shape evaluation, and (for small iteration
// spaces) the interpreter. Any crash, leak, hang or undefined behaviour is a bug.
#include <cstdint>
#include <string>

#include "lang/Frontend.h"
#include "lang/Shapes.h"
#include "runtime/Interpreter.h"
#include "runtime/RandomInputs.h"

namespace {

// Iterations the interpreter may take per input, so each run stays fast.
constexpr int64_t kMaxPoints = 20000;

bool small_enough(const tcs::DefShapes& shapes) {
  int64_t total = 0;
  for (const auto& stmt : shapes.stmts) {
    int64_t points = 1;
    for (const tcs::IndexRange& r : stmt) {
      int64_t n = r.hi - r.lo + 1;
      if (n > kMaxPoints || points * n > kMaxPoints) return false;
      points *= n;
    }
    total += points;
  }
  for (const tcs::TensorShape& t : shapes.tensors)
    if (t.numel() > kMaxPoints) return false;
  return total <= kMaxPoints;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto checked = tcs::check_source("fuzz.tc", std::string(reinterpret_cast<const char*>(data), size));
  std::string sink = tcs::diagnostics_format(checked->file, checked->diagnostics);
  sink += tcs::diagnostics_to_json(checked->file, checked->diagnostics);
  if (checked->has_errors()) return 0;
  for (const tcs::SemaDef& def : checked->defs) {
    for (int64_t value : {1, 3}) {
      tcs::SizeMap sizes;
      for (const std::string& p : def.size_params) sizes[p] = value;
      auto bound = tcs::sizes_bind(def, sizes, {});
      if (!bound) continue;
      auto shapes = tcs::shapes_evaluate(def, *bound);
      if (!shapes || !small_enough(*shapes)) continue;
      auto inputs = tcs::random_inputs(def, *shapes, 1);
      if (!inputs) continue;
      auto outputs = tcs::interpret(def, *shapes, *inputs);
      (void)outputs;
    }
  }
  return 0;
}
