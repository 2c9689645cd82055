#pragma once
// Running a kernel the way a user asks for it: once on fresh buffers (the outputs shown
// and checked), then timed with the one timing routine on buffers prepared beforehand, so
// the figure is the kernel's own time: no allocation, zero-filling, copying or page
// faults inside it. The CLI's run, the IDE's Run panel and the tuner all call this.
#include <functional>
#include <memory>
#include <vector>

#include "kernel/Kernel.h"
#include "runtime/Compare.h"
#include "runtime/Timing.h"

namespace tcs {

struct MeasureRequest {
  TimingPlan plan{.warmup_calls = 1, .min_calls = 0};  // min_calls 0 and no min_total_ms: run once, no timing
  // Rotate copies of the buffers covering at least 64 MiB, so every timed call starts with
  // cold caches (how the peers in shared/peers were measured).
  bool cold_caches = false;
  // Compare the first run's outputs with the reference interpreter on the same inputs.
  bool check = false;
  // Told when a stage begins ("running once", "timing", "checking against the interpreter").
  std::function<void(const char* stage)> on_stage = nullptr;
};

struct Measurement {
  TensorMap outputs;      // of the first run
  double first_ms = 0;    // the first run alone (cold: first touch of the buffers)
  Timing timing;          // the timed calls; empty when none were asked for
  double flops = 0;       // arithmetic operations of one run (kernel_flops)
  double gflops = 0;      // at the median time (or the first run's when not timed)
  bool checked = false, check_ok = true;
  double max_error = 0;
  std::vector<TensorComparison> comparisons;
};

// Errors: Sizes (a supplied tensor of the wrong shape or type, a missing input),
// RuntimeFault (the kernel, or the interpreter when checking, failed), Cancelled.
Expected<Measurement> measure_kernel(const Kernel& kernel, const TensorMap& inputs, const MeasureRequest& request);

// Compares a run's outputs with the reference interpreter's (`want`), tensor by tensor;
// fills m.checked, m.check_ok, m.max_error and m.comparisons. measure_kernel's check and
// the tuner's worker (which computes `want` once per workload) both use it.
void compare_outputs(Measurement& m, const TensorMap& want);

// The reference interpreter as a Kernel (target "interp").
std::unique_ptr<Kernel> interpreter_kernel(const SemaDef& def, const DefShapes& shapes);

}  // namespace tcs
