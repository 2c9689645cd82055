#include "tuner/Tuner.h"

#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "runtime/Timing.h"
#include "support/Json.h"
#include "targets/Target.h"
#include "tuner/Search.h"
#include "tuner/WorkerProcess.h"

namespace tcs::tuner {

namespace {

std::string settings_json(const TuneSettings& s) {
  JsonWriter w;
  w.begin_object();
  w.field("trials", s.trials);
  w.field("time_limit_s", s.time_limit_s);
  w.field("batch", s.batch);
  w.field("threads", s.threads);
  w.field("timeout_s", s.timeout_s);
  w.field("patience_rounds", s.patience_rounds);
  w.field("remeasure", s.remeasure);
  w.field("search", "presets, then mutation and crossover of the fastest with an epsilon of random draws");
  w.end_object();
  return w.str();
}

std::string ms_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g ms", ms);
  return buf;
}

}  // namespace

Expected<TuneResult> tune(TuningCache& cache, const KernelSetup& k, const TuneSettings& s,
                          const std::function<void(const TuneProgress&)>& on_progress, const std::atomic<bool>* cancel) {
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  Workload w = workload_of(k);
  TargetIdentity target = find_target("cpu")->identify();
  int threads = s.threads > 0 ? s.threads : int(std::max(1u, std::thread::hardware_concurrency()));

  SearchSpace space;
  space.kernel = &k;
  auto known = cache.measured_options(w, target);
  if (!known) return known.failure();
  space.seen = *known;
  TuneResult result;
  TuneProgress& p = result.progress;
  p.known = int(known->size());
  auto session = cache.begin_session(w, target, s.seed, settings_json(s), s.app_version);
  if (!session) return session.failure();
  result.session = *session;
  auto fastest = cache.fastest(w, target, 16);
  if (!fastest) return fastest.failure();
  if (!fastest->empty()) p.best_ms = fastest->front().second;

  std::mt19937_64 rng(s.seed);
  WorkerProcess worker(s.worker_command);
  int64_t next_id = 1;
  int quiet_rounds = 0;
  auto measure = [&](const std::string& options, int min_calls, double min_total_ms, bool check) -> Expected<MeasureReply> {
    MeasureJob job;
    job.id = next_id++;
    job.source = k.checked->file.text();
    job.entry = k.def->name;
    job.sizes = k.shapes.sizes;
    job.options_json = options;
    job.threads = threads;
    job.check = check;
    job.min_calls = min_calls;
    job.min_total_ms = min_total_ms;
    return worker.measure(job, s.timeout_s);
  };

  for (;; ++p.round) {
    if (cancel && cancel->load()) result.stopped_because = "cancelled";
    else if (p.trials >= s.trials) result.stopped_because = "trial budget";
    else if (elapsed() >= s.time_limit_s) result.stopped_because = "time limit";
    else if (quiet_rounds >= s.patience_rounds)
      result.stopped_because = "no gain for " + std::to_string(s.patience_rounds) + " rounds";
    if (!result.stopped_because.empty()) break;

    int want = std::min(s.batch, s.trials - p.trials);
    std::vector<Candidate> batch = p.round == 0 ? space.presets() : std::vector<Candidate>{};
    if (int(batch.size()) > want) batch.resize(size_t(want));
    std::vector<std::string> parents;
    for (const auto& [options, ms] : *fastest) parents.push_back(options);
    for (Candidate& c : space.next(rng, parents, want - int(batch.size()))) batch.push_back(std::move(c));
    if (batch.empty()) {
      result.stopped_because = "search space exhausted";
      break;
    }
    std::optional<double> best_before = p.best_ms;
    std::vector<Trial> trials;
    for (const Candidate& c : batch) {
      if (cancel && cancel->load()) break;
      auto reply = measure(c.json, 5, 100, true);
      if (!reply) return reply.failure();
      Trial t;
      t.options_json = c.json;
      t.origin = c.origin;
      t.round = p.round;
      t.status = reply->status;
      t.message = reply->message;
      t.median_ms = reply->median_ms;
      t.repeats_ms = reply->repeats_ms;
      t.compile_ms = reply->compile_ms;
      t.threads = threads;
      trials.push_back(t);
      ++p.trials;
      if (t.status != TrialStatus::Ok) {
        ++p.failures;
        p.last = std::string(trial_status_name(t.status)) + ": " + t.message;
      } else {
        p.last = "ok " + ms_text(*t.median_ms);
        if (!p.best_ms || *t.median_ms < *p.best_ms) p.best_ms = t.median_ms;
      }
      p.rejected = space.rejected;
      p.elapsed_s = elapsed();
      p.best_gflops = p.best_ms ? w.flops / (*p.best_ms * 1e6) : 0;
      double per_trial = p.elapsed_s / p.trials;
      p.eta_s = std::min(per_trial * (s.trials - p.trials), std::max(0.0, s.time_limit_s - p.elapsed_s));
      if (on_progress) on_progress(p);
    }
    if (Status st = cache.record_trials(result.session, w, target, trials); !st) return st.failure();
    bool gained = p.best_ms && (!best_before || *p.best_ms < *best_before * 0.99);
    quiet_rounds = gained ? 0 : quiet_rounds + 1;
    fastest = cache.fastest(w, target, 16);
    if (!fastest) return fastest.failure();
  }

  // The winner: the fastest few again, with many more calls each.
  std::optional<std::pair<std::string, Timing>> winner;
  if (!(cancel && cancel->load())) {
    for (int i = 0; i < std::min<int>(s.remeasure, int(fastest->size())); ++i) {
      auto reply = measure((*fastest)[size_t(i)].first, 30, 500, false);
      if (!reply) return reply.failure();
      if (reply->status != TrialStatus::Ok) continue;
      Timing t;
      t.median_ms = *reply->median_ms;
      t.ms = reply->repeats_ms;
      if (!winner || t.median_ms < winner->second.median_ms) winner = {{(*fastest)[size_t(i)].first, t}};
    }
  }
  if (winner) {
    if (Status st = cache.set_best(w, target, winner->first, winner->second.median_ms, int(winner->second.ms.size())); !st)
      return st.failure();
  }
  if (Status st = cache.end_session(result.session, result.stopped_because == "cancelled" ? "cancelled" : "finished"); !st)
    return st.failure();
  auto best = cache.best(w, target);
  if (!best) return best.failure();
  result.best = *best;
  p.elapsed_s = elapsed();
  return result;
}

}  // namespace tcs::tuner
