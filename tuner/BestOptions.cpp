#include "tuner/BestOptions.h"

#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <thread>

#include "targets/Target.h"

namespace tcs::tuner {

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

Expected<BestOptions> best_options(const std::string& path, const KernelSetup& k, int threads, bool cold,
                                   const std::string& target_name) {
  const Target* target = find_target(target_name);
  if (!target || !target->identify) return Error{ErrorKind::Options, "target '" + target_name + "' cannot be tuned"};
  Workload w = workload_of(k);
  std::string what = "'" + w.entry + "' (" + w.sizes + ")";
  BestOptions out;
  std::optional<BestRecord> record;
  int tuned_threads = threads;
  bool tuned_cold = cold;
  if (std::filesystem::exists(path)) {
    auto cache = TuningCache::open(path, {.write = false});
    if (!cache) return cache.failure();
    TargetIdentity machine = target->identify();
    // This thread count first, then the others up to a generous count (each one lookup).
    std::vector<int> counts = {threads};
    for (int t = 1, most = std::max<int>({threads, int(std::thread::hardware_concurrency()), 16}); t <= most; ++t)
      if (t != threads) counts.push_back(t);
    for (size_t i = 0; i < counts.size() && !record; ++i)
      for (bool c : {cold, !cold}) {
        tuned_threads = counts[i], tuned_cold = c;
        auto found = (*cache)->best(w, tuning_target(machine, tuned_threads, c));
        if (!found) return found.failure();
        if ((record = *found)) break;
      }
  }
  auto plural = [](int n) { return std::to_string(n) + (n == 1 ? " thread" : " threads"); };
  if (record) {
    auto options = mapping_options_from_json(record->options_json);
    if (!options) return error_prefixed(options.failure(), "the tuned options of " + what + " in " + path + ": ");
    out.options = *options;
    out.note = "using tuned options for " + what + " from " + path + ": " + number(record->median_ms) + " ms, " +
               number(record->gflops) + " GFLOP/s on " + plural(tuned_threads) + (tuned_cold ? " with cold caches" : "") +
               ", measured " + local_time_text(record->updated_at);
    if (tuned_threads != threads) out.note += " (tuned for " + plural(tuned_threads) + ", not the " + plural(threads) + " of this run)";
    if (tuned_cold != cold) out.note += tuned_cold ? " (timed with cold caches, not warm)" : " (timed with warm caches, not cold)";
    out.record = record;
    return out;
  }
  auto fallback = kernel_options(*k.def, OptionsChoice{}, &k.shapes);
  if (!fallback) return fallback.failure();
  out.options = *fallback;
  out.note = "no tuned entry for " + what + " on this machine in " + path + "; using the default preset";
  return out;
}

}  // namespace tcs::tuner
