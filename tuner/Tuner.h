#pragma once
// A tuning session for one kernel at one set of sizes on this machine: rounds of
// candidates from the search space (tuner/Search.h), ranked by the cost model
// (tuner/CostModel.h) once it has data, measured in a child process
// (tuner/WorkerProcess.h), each round stored in the cache as it completes, until a
// budget or patience runs out or the caller cancels. What the cache already holds for
// the kernel is never measured again, and its fastest seed the first round, so a killed
// session resumes where it stopped. Before declaring a winner the fastest few are
// measured again with more repeats.
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernel/KernelSetup.h"
#include "options/MappingOptions.h"
#include "tuner/Cache.h"

namespace tcs::tuner {

struct TuneSettings {
  int trials = 200;             // new measurements in this session
  double time_limit_s = 600;    // wall time of the session
  uint64_t seed = 0;
  int batch = 16;               // candidates per round, stored together
  int threads = 0;              // threads of each candidate; 0: every core
  double timeout_s = 20;        // per candidate: compile, check and time
  int patience_rounds = 8;      // stop after this many rounds without a 1% gain (0: never)
  int remeasure = 3;            // the fastest re-measured before the winner is declared
  bool overlap = true;          // send candidates ahead: the worker compiles them on every core between timings
  bool cold = false;            // time with cold caches; results are kept apart from warm ones (tuning_target)
  double pace_every_s = 5;      // the host's pace is timed at a round's start this long after the last time (Task.cpp)
  // Options to start from (a hand-tuned set, last week's winner), measured first, before
  // the presets, unless their program was measured already.
  std::vector<MappingOptions> start;
  // The measuring child: {PROGRAM, "worker", "--memory-mb", N} (tuner/Worker.h).
  std::vector<std::string> worker_command;
  std::string app_version = "0";
};

struct TuneProgress {
  int round = 0, trials = 0, failures = 0, rejected = 0, known = 0;
  int same_program = 0;  // options not measured: they make a program measured already (any session)
  std::optional<double> best_ms;  // fastest so far, cache included
  double best_gflops = 0;
  // The cost model: samples it trained on (0: not yet; candidates are then drawn without
  // it); the rank correlation of measured and predicted throughput over its samples, each
  // held out of training once (five folds, Ansor's validation); and the same for the candidates it
  // chose, predicted before they were measured (the last 64; a narrow, harder range).
  int model_samples = 0;
  double model_rank = 0;
  double model_online_rank = 0;
  // The host's pace: one fixed program's time now over its time in its own trial (1: as
  // then; 1.1: the machine runs it 10 % slower). The cost model learns from the trials'
  // times over it; the cache keeps them as measured.
  double pace = 1;
  double elapsed_s = 0, eta_s = 0;
  int session_trials = 0;  // every task's trials in this session (the budget's count)
};

struct TuneResult {
  int64_t session = 0;
  TuneProgress progress;
  std::optional<BestRecord> best;
  std::string stopped_because;  // "trial budget", "time limit", "no gain for 8 rounds", "cancelled", "search space exhausted"
  // How the final turns chose the best: the fastest finalist, or an incumbent (the starting
  // options, the cache's best from before) kept against a newcomer within a few per cent,
  // or displaced by one clearly faster; with the figures. Empty when nothing was chosen.
  std::string chosen;
};

Expected<TuneResult> tune(TuningCache& cache, const KernelSetup& kernel, const TuneSettings& settings,
                          const std::function<void(const TuneProgress&)>& on_progress = nullptr,
                          const std::atomic<bool>* cancel = nullptr);

// Several kernels (the defs of a file, one def at several sizes) on one budget: the trial
// budget and the time limit are the whole session's. Every task gets one round first,
// then each round goes to the task whose time is expected to fall fastest per trial
// (Ansor's gradient rule: Task::expected_gain). A task that runs out of candidates or
// patience stops while the others go on. on_progress receives the task that just
// measured a trial (its elapsed and ETA are the session's).
Expected<std::vector<TuneResult>> tune_tasks(TuningCache& cache, const std::vector<const KernelSetup*>& kernels,
                                             const TuneSettings& settings,
                                             const std::function<void(size_t task, const TuneProgress&)>& on_progress = nullptr,
                                             const std::atomic<bool>* cancel = nullptr);

}  // namespace tcs::tuner
