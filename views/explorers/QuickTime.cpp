#include "views/explorers/QuickTime.h"

#include <cstdio>

#include "kernel/Measure.h"
#include "runtime/RandomInputs.h"

namespace tcs {

QuickTime quick_time(const Kernel& kernel, const std::atomic<bool>* cancel) {
  QuickTime t;
  auto inputs = random_inputs(kernel.def(), kernel.shapes(), 1);
  if (!inputs) {
    t.error = inputs.error();
    return t;
  }
  MeasureRequest request;
  request.plan = TimingPlan{.warmup_calls = 1, .min_calls = 3, .min_total_ms = 50, .max_calls = 30, .cancel = cancel};
  auto m = measure_kernel(kernel, *inputs, request);
  if (!m) {
    t.error = m.error();
    return t;
  }
  t.timed = true;
  t.median_ms = m->timing.median_ms;
  t.gflops = m->gflops;
  t.calls = int(m->timing.ms.size());
  return t;
}

std::string quick_time_text(const QuickTime& t) {
  if (!t.timed) return t.error;
  char buf[128];
  std::snprintf(buf, sizeof buf, "%.*f ms, median of %d calls · %.1f GFLOP/s", t.median_ms < 1 ? 3 : 2, t.median_ms, t.calls,
                t.gflops);
  return buf;
}

}  // namespace tcs
