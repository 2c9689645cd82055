#pragma once
// The one timing routine. Every figure the product shows (the CLI's run --repeat, the
// IDE's Run panel, the benchmarks, later the tuner) comes from time_calls, so they agree.
// It times only the call: whatever the call needs is prepared before and outside it.
#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>

#include "support/Expected.h"

namespace tcs {

struct TimingPlan {
  int warmup_calls = 1;        // untimed calls first (caches, page faults, thread start-up) ...
  // ... and untimed calls until this much time has passed. A core takes tens of
  // milliseconds to reach its steady speed on a new kernel: batched matmul at one thread
  // with cold caches ran its first 60 to 100 calls at 0.82 ms, then 0.65 ms, so a run of 30
  // calls reported 25 % more than the benchmark's 0.25 s of calls.
  double min_warmup_ms = 100;
  int min_calls = 3;           // timed calls: at least this many ...
  double min_total_ms = 0;     // ... and at least this much timed time in all ...
  int max_calls = 1000000;     // ... but never more than this many
  const std::atomic<bool>* cancel = nullptr;  // checked between calls: a Cancelled error
  // Told after each timed call: how many so far and their total time (for a progress line).
  std::function<void(size_t timed_calls, double timed_ms)> on_call = nullptr;
};

struct Timing {
  std::vector<double> ms;  // each timed call, in order
  double median_ms = 0;    // the true median (mean of the middle two for an even count)
  double best_ms = 0;
};

// Calls call(i) for i = 0, 1, ... (warm-up calls first); each call is timed alone with a
// steady clock. A failing call stops the timing and its error is returned.
Expected<Timing> time_calls(const std::function<Status(size_t call)>& call, const TimingPlan& plan);

// Cold caches the peers' way: as many copies of a call's buffers as cover 64 MiB (at least
// two), used in rotation, so no call finds its data in a cache the previous call filled.
size_t cold_copies(size_t bytes_per_copy);

// time_calls over `copies` sets of buffers in rotation: call(copy) gets i % copies, and the
// warm-up touches every copy at least once, so no timed call pays a first-touch page fault.
// The CLI's run, the IDE, the tuner's worker (through measure_kernel) and bench_cpu's
// contenders, peers included, are all timed through this.
Expected<Timing> time_rotating(const std::function<Status(size_t copy)>& call, size_t copies, TimingPlan plan);

double median_of(std::vector<double> values);

}  // namespace tcs
