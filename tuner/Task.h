#pragma once
// One kernel's part of a tuning session: its cache session, what it already knows, its
// search space and cost model, and the rounds it has run. The scheduler (tuner/Tuner.h)
// decides which task runs the next round; a task decides what that round measures.
#include <chrono>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "kernel/KernelSetup.h"
#include "runtime/Timing.h"
#include "tuner/Cache.h"
#include "tuner/Learner.h"
#include "tuner/Search.h"
#include "tuner/Tuner.h"
#include "tuner/WorkerProcess.h"

namespace tcs::tuner {

class Task {
 public:
  Task(TuningCache& cache, const KernelSetup& kernel, const TuneSettings& settings, WorkerProcess& worker);

  // Opens the cache session; reads what is measured already (never measured again), the
  // fastest so far (the first parents) and the kernel's trials at any size (the model).
  Status start();
  // One round of at most `want` candidates, stored in one transaction. False when the task
  // has nothing left to try or has gone `patience_rounds` without a 1% gain.
  Expected<bool> round(int want, const std::atomic<bool>* cancel, const std::function<void(const TuneProgress&)>& on_trial);
  // Re-measures the fastest few beside the cache's best record and the starting options
  // that came near them, in turns and with many more calls, records the winner, ends the
  // session.
  Expected<TuneResult> finish(const std::string& stopped_because, bool cancelled);

  // The scheduler's estimate of how fast the kernel's time falls per further trial (ms per
  // trial, weighted): Ansor's gradient, a fifth from the last three rounds, the rest an
  // optimistic guess from the trials so far. Infinite before its first result.
  double expected_gain() const;

  const Workload& workload() const { return workload_; }
  const std::string& stopped_because() const { return stopped_; }  // why round() said no more
  TuneProgress& progress() { return progress_; }

 private:
  // A candidate lowered to its loop nest: the cost model's rows, and which program the
  // options make (the stable hash of the nest's text, loop_nest_to_string).
  struct Lowered {
    FeatureRows rows;
    std::string program;
  };
  std::vector<Candidate> choose(int want);
  std::vector<std::optional<Lowered>> lower(const std::vector<Candidate>& cs);
  // The worker's job for a candidate, and its time limit.
  std::pair<MeasureJob, double> job_for(const std::string& options, int min_calls, double min_total_ms, bool check);
  Status learn();
  // The host's pace (Task.cpp): whether it is time to time the pace program again, and
  // its timing taken.
  bool pace_due() const;
  void take_pace(const MeasureReply& reply);
  // The finalists' options and their timings from the turns (failed ones left out).
  Expected<std::vector<std::pair<std::string, Timing>>> remeasure_finalists();

  TuningCache& cache_;
  const KernelSetup& kernel_;
  const TuneSettings& settings_;
  WorkerProcess& worker_;
  Workload workload_;
  TargetIdentity target_;
  int threads_ = 1;
  SearchSpace space_;
  Learner learner_;
  std::mt19937_64 rng_;
  int64_t session_ = 0;
  std::vector<Candidate> queued_;  // the starting options and presets not yet measured, measured first
  std::vector<std::pair<std::string, double>> fastest_;  // options, median ms; fastest first
  std::vector<std::pair<std::string, double>> started_;  // the starting options measured, with their medians
  std::string best_before_;  // the cache's best options when the session began (trials update the record)
  std::vector<std::pair<int, double>> history_;           // after each round: trials, best ms
  int quiet_rounds_ = 0;
  std::string stopped_;
  int64_t next_job_ = 1;
  TuneProgress progress_;
  // One program timed again every TuneSettings::pace_every_s: the median of its last three
  // times over its reference (its own trial's median), progress_.pace, divides the
  // trials' times the learner gets.
  struct Pace {
    std::string options;  // empty until pacing begins
    double reference_ms = 0;
    std::vector<double> recent;  // the last three timings over the reference
    std::chrono::steady_clock::time_point last{};
  };
  Pace pace_;
  // The round being assembled: features, the model's score and the program of each candidate.
  std::vector<FeatureRows> features_;
  std::vector<std::optional<double>> scores_;
  std::vector<std::string> programs_chosen_;
  // Each candidate lowered once a session: a population not chosen may be drawn again in
  // a later round (canonical options JSON -> its lowering; none: refused).
  std::unordered_map<std::string, std::optional<Lowered>> lowered_;
  // The programs measured for this kernel, in this session or before it (the cache keeps
  // each candidate's program). Many options make the same program (a tile of 1 and none,
  // an unroll of a loop the register tile unrolls anyway): in 200 trials of conv only 83
  // programs were distinct, so half the budget re-timed programs already timed. Options
  // whose program is here are not measured (Task::choose).
  std::unordered_set<std::string> programs_;
};

}  // namespace tcs::tuner
