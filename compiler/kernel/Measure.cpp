#include "kernel/Measure.h"

#include <algorithm>
#include <chrono>

#include "Compiler.h"
#include "runtime/Interpreter.h"

namespace tcs {

namespace {

class InterpreterKernel final : public Kernel {
 public:
  using Kernel::Kernel;
  std::string_view target() const override { return "interp"; }
  Status run_buffers(std::vector<Tensor>& buffers) const override { return interpret_buffers(def(), shapes(), buffers); }
};

// The buffers the timed calls use in rotation: one set when warm, cold_copies when cold.
Expected<std::vector<std::vector<Tensor>>> timing_slots(const Kernel& kernel, const TensorMap& inputs, bool cold) {
  auto first = kernel_buffers(kernel.def(), kernel.shapes(), inputs, kernel.local_temporaries());
  if (!first) return first.failure();
  size_t bytes = 0;
  for (const Tensor& t : *first) bytes += t.data.size();
  std::vector<std::vector<Tensor>> slots(cold ? cold_copies(bytes) : 1, *first);
  return slots;
}

}  // namespace

std::unique_ptr<Kernel> interpreter_kernel(const SemaDef& def, const DefShapes& shapes) {
  return std::make_unique<InterpreterKernel>(def, shapes);
}

Expected<Measurement> measure_kernel(const Kernel& kernel, const TensorMap& inputs, const MeasureRequest& request) {
  Measurement m;
  m.flops = kernel_flops(kernel.def(), kernel.shapes());

  // The run whose outputs are shown and checked: fresh buffers, timed alone.
  auto stage = [&](const char* name) {
    if (request.on_stage) request.on_stage(name);
  };
  stage("running once");
  auto buffers = kernel_buffers(kernel.def(), kernel.shapes(), inputs, kernel.local_temporaries());
  if (!buffers) return buffers.failure();
  auto t0 = std::chrono::steady_clock::now();
  if (Status s = kernel.run_buffers(*buffers); !s) return s.failure();
  m.first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  m.outputs = kernel_outputs(kernel.def(), std::move(*buffers));

  if (request.plan.min_calls > 0 || request.plan.min_total_ms > 0) {
    auto slots = timing_slots(kernel, inputs, request.cold_caches);
    if (!slots) return slots.failure();
    stage("timing");
    auto timing = time_rotating([&](size_t i) { return kernel.run_buffers((*slots)[i]); }, slots->size(), request.plan);
    if (!timing) return timing.failure();
    m.timing = std::move(*timing);
  }
  double ms = m.timing.ms.empty() ? m.first_ms : m.timing.median_ms;
  m.gflops = ms > 0 ? m.flops / (ms * 1e6) : 0;

  if (request.plan.cancel && request.plan.cancel->load()) return Error{ErrorKind::Cancelled, "run cancelled"};
  if (request.check) {
    stage("checking against the interpreter");
    auto want = interpret(kernel.def(), kernel.shapes(), inputs);
    if (!want) return error_prefixed(want.failure(), "the interpreter failed on the same inputs: ");
    compare_outputs(m, *want);
  }
  return m;
}

void compare_outputs(Measurement& m, const TensorMap& want) {
  m.checked = true;
  for (const auto& [name, t] : want) {
    m.comparisons.push_back(compare_tensors(name, m.outputs.at(name), t));
    m.max_error = std::max(m.max_error, m.comparisons.back().max_error);
    m.check_ok &= m.comparisons.back().ok;
  }
}

}  // namespace tcs
