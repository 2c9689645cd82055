#include "tuner/BestOptions.h"

#include <cstdio>
#include <filesystem>

#include "targets/Target.h"

namespace tcs::tuner {

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

Expected<BestOptions> best_options(const std::string& path, const KernelSetup& k, const std::string& target_name) {
  const Target* target = find_target(target_name);
  if (!target || !target->identify) return Error{ErrorKind::Options, "target '" + target_name + "' cannot be tuned"};
  Workload w = workload_of(k);
  std::string what = "'" + w.entry + "' (" + w.sizes + ")";
  BestOptions out;
  std::optional<BestRecord> record;
  if (std::filesystem::exists(path)) {
    auto cache = TuningCache::open(path, {.write = false});
    if (!cache) return cache.failure();
    auto found = (*cache)->best(w, target->identify());
    if (!found) return found.failure();
    record = *found;
  }
  if (record) {
    auto options = mapping_options_from_json(record->options_json);
    if (!options) return error_prefixed(options.failure(), "the tuned options of " + what + " in " + path + ": ");
    out.options = *options;
    out.note = "using tuned options for " + what + " from " + path + ": " + number(record->median_ms) + " ms, " +
               number(record->gflops) + " GFLOP/s, measured " + local_time_text(record->updated_at);
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
