#pragma once
// What the tuner and its measuring child process (`tcstudio-cli worker`) say to each
// other: one JSON object per line each way, a job down, its reply up. Plain data, so a
// crash, a hang or a runaway allocation in a candidate stays in the child: the parent
// records it as that trial's failure and starts a new child.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lang/Shapes.h"
#include "support/Expected.h"
#include "tuner/Cache.h"

namespace tcs::tuner {

struct MeasureJob {
  int64_t id = 0;
  std::string source;  // the .tc text
  std::string entry;
  SizeMap sizes;
  std::string options_json;
  int threads = 1;
  bool check = true;            // compare with the interpreter first (at reduced sizes when large)
  int min_calls = 5;            // timing: at least this many calls ...
  double min_total_ms = 100;    // ... and this much time
  // A candidate whose checked run takes longer than this, and then a run of its own in the
  // timing turn, is not timed further: that run is its time (0: always time it). The
  // tuner passes a multiple of the best so far, so a hopeless candidate costs two runs,
  // not a minimum of calls.
  double cutoff_ms = 0;
  // Time with cold caches: each call on its own copy of the buffers, in rotation over
  // 64 MiB (MeasureRequest::cold_caches, the peers' and bench_cpu's method).
  bool cold = false;
};

struct MeasureReply {
  int64_t id = 0;
  TrialStatus status = TrialStatus::Ok;
  std::string message;
  std::optional<double> median_ms;
  std::vector<double> repeats_ms;
  double compile_ms = 0;
};

std::string job_to_line(const MeasureJob& job);
Expected<MeasureJob> job_from_line(std::string_view line);
std::string reply_to_line(const MeasureReply& reply);
Expected<MeasureReply> reply_from_line(std::string_view line);

}  // namespace tcs::tuner
