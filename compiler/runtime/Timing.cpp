#include "runtime/Timing.h"

#include <algorithm>
#include <chrono>

namespace tcs {

double median_of(std::vector<double> xs) {
  if (xs.empty()) return 0;
  std::sort(xs.begin(), xs.end());
  size_t n = xs.size();
  return n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
}

Expected<Timing> time_calls(const std::function<Status(size_t call)>& call, const TimingPlan& plan) {
  using Clock = std::chrono::steady_clock;
  auto cancelled = [&] { return plan.cancel && plan.cancel->load(); };
  size_t i = 0;
  auto warm_start = Clock::now();
  auto warming = [&] {
    return i < size_t(std::max(0, plan.warmup_calls)) ||
           std::chrono::duration<double, std::milli>(Clock::now() - warm_start).count() < plan.min_warmup_ms;
  };
  for (; warming(); ++i) {
    if (cancelled()) return Error{ErrorKind::Cancelled, "timing cancelled"};
    if (Status s = call(i); !s) return s.failure();
  }
  Timing t;
  double total = 0;
  while (int(t.ms.size()) < plan.max_calls && (int(t.ms.size()) < plan.min_calls || total < plan.min_total_ms)) {
    if (cancelled()) return Error{ErrorKind::Cancelled, "timing cancelled"};
    auto t0 = Clock::now();
    Status s = call(i++);
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (!s) return s.failure();
    t.ms.push_back(ms);
    total += ms;
    if (plan.on_call) plan.on_call(t.ms.size(), total);
  }
  t.median_ms = median_of(t.ms);
  t.best_ms = t.ms.empty() ? 0 : *std::min_element(t.ms.begin(), t.ms.end());
  return t;
}

size_t cold_copies(size_t bytes_per_copy) {
  return std::max<size_t>(2, (size_t(64) << 20) / std::max<size_t>(bytes_per_copy, 1) + 1);
}

Expected<Timing> time_rotating(const std::function<Status(size_t copy)>& call, size_t copies, TimingPlan plan) {
  copies = std::max<size_t>(copies, 1);
  plan.warmup_calls = std::max(plan.warmup_calls, int(copies));
  return time_calls([&](size_t i) { return call(i % copies); }, plan);
}

}  // namespace tcs
