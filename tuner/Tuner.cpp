#include "tuner/Tuner.h"

#include <chrono>
#include <memory>

#include "tuner/Task.h"
#include "tuner/WorkerProcess.h"

namespace tcs::tuner {

Expected<std::vector<TuneResult>> tune_tasks(TuningCache& cache, const std::vector<const KernelSetup*>& kernels,
                                             const TuneSettings& s,
                                             const std::function<void(size_t task, const TuneProgress&)>& on_progress,
                                             const std::atomic<bool>* cancel) {
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  WorkerProcess worker(s.worker_command);  // one measuring child for every task
  std::vector<std::unique_ptr<Task>> tasks;
  for (const KernelSetup* k : kernels) {
    tasks.push_back(std::make_unique<Task>(cache, *k, s, worker));
    if (Status st = tasks.back()->start(); !st) return st.failure();
  }
  std::vector<bool> stopped(tasks.size(), false);
  int total = 0;
  std::string why;
  for (size_t turn = 0;; ++turn) {
    if (cancel && cancel->load()) why = "cancelled";
    else if (total >= s.trials) why = "trial budget";
    else if (elapsed() >= s.time_limit_s) why = "time limit";
    // One round each first, then the largest expected gain.
    size_t pick = tasks.size();
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (stopped[i]) continue;
      if (turn < tasks.size()) {
        if (i >= turn) { pick = i; break; }
        continue;
      }
      if (pick == tasks.size() || tasks[i]->expected_gain() > tasks[pick]->expected_gain()) pick = i;
    }
    if (pick == tasks.size() && turn < tasks.size()) continue;  // that task stopped already
    if (pick == tasks.size() && why.empty()) why = "every task stopped";
    if (!why.empty()) break;
    Task& task = *tasks[pick];
    auto trial = [&](const TuneProgress& p) {
      ++total;
      TuneProgress shown = p;
      shown.session_trials = total;
      shown.elapsed_s = elapsed();
      shown.eta_s = std::min(shown.elapsed_s / total * (s.trials - total), std::max(0.0, s.time_limit_s - shown.elapsed_s));
      task.progress().elapsed_s = shown.elapsed_s;
      if (on_progress) on_progress(pick, shown);
    };
    auto more = task.round(std::min(s.batch, s.trials - total), cancel, trial);
    if (!more) return more.failure();
    if (!*more) stopped[pick] = true;
  }
  std::vector<TuneResult> results;
  for (size_t i = 0; i < tasks.size(); ++i) {
    auto r = tasks[i]->finish(stopped[i] ? tasks[i]->stopped_because() : why, why == "cancelled");
    if (!r) return r.failure();
    r->progress.elapsed_s = elapsed();
    r->progress.session_trials = total;
    results.push_back(std::move(*r));
  }
  return results;
}

Expected<TuneResult> tune(TuningCache& cache, const KernelSetup& kernel, const TuneSettings& settings,
                          const std::function<void(const TuneProgress&)>& on_progress, const std::atomic<bool>* cancel) {
  auto results = tune_tasks(
      cache, {&kernel}, settings, [&](size_t, const TuneProgress& p) { if (on_progress) on_progress(p); }, cancel);
  if (!results) return results.failure();
  return std::move(results->front());
}

}  // namespace tcs::tuner
