#pragma once
// The time the explorers show beside a choice: the kernel run a few times on seeded random
// inputs through the compiler's one measurement routine (at least 3 calls and 50 ms, at
// most 30): enough to compare two fusions or two tilings at a glance, not a benchmark.
#include <atomic>
#include <string>

namespace tcs {

class Kernel;

struct QuickTime {
  bool timed = false;
  double median_ms = 0, gflops = 0;
  int calls = 0;
  std::string error;  // why there is no time
};

QuickTime quick_time(const Kernel& kernel, const std::atomic<bool>* cancel = nullptr);

// "0.023 ms, median of 30 calls · 13.0 GFLOP/s", or the error.
std::string quick_time_text(const QuickTime& t);

}  // namespace tcs
