#include "tuner/Tuner.h"

#include <chrono>
#include <cstdio>
#include <map>
#include <algorithm>
#include <random>
#include <thread>

#include "runtime/Timing.h"
#include "support/Json.h"
#include "targets/Target.h"
#include "poly/Lowering.h"
#include "tuner/CostModel.h"
#include "tuner/Features.h"
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

// The cost model's side of a session: what it learns from (this workload's trials and
// those of the same kernel at other sizes, from the cache), when it retrains (the data
// grew by a fifth: Ansor's adaptive training), and how well it ranks what it had not seen.
struct Learner {
  CostModel model;
  std::vector<FeatureRows> x;
  std::vector<std::string> group;  // the workload each sample belongs to: labels are per workload
  std::vector<std::optional<double>> ms;
  size_t trained_on = 0;
  std::vector<double> predicted, measured;  // held out: predicted before it was measured
  double holdout_rank = 0;
  uint64_t seed;

  explicit Learner(uint64_t s) : model(s), seed(s) {}

  void add(FeatureRows f, const std::string& key, std::optional<double> median) {
    x.push_back(std::move(f));
    group.push_back(key);
    ms.push_back(median);
  }

  Status maybe_train() {
    if (x.size() < 32 || double(x.size()) < 1.2 * double(trained_on)) return success();
    std::map<std::string, double> best;
    for (size_t i = 0; i < x.size(); ++i)
      if (ms[i] && (!best.count(group[i]) || *ms[i] < best[group[i]])) best[group[i]] = *ms[i];
    std::vector<float> labels;
    for (size_t i = 0; i < x.size(); ++i) labels.push_back(ms[i] ? float(best[group[i]] / *ms[i]) : 0.0f);
    // Validation first: a model of four fifths of the samples ranks the other fifth.
    std::vector<size_t> order(x.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937_64(seed + x.size()));
    size_t held = x.size() / 5;
    std::vector<FeatureRows> fit_x, test_x;
    std::vector<float> fit_y;
    std::vector<double> test_y;
    for (size_t j = 0; j < order.size(); ++j) {
      size_t i = order[j];
      if (j < held) test_x.push_back(x[i]), test_y.push_back(labels[i]);
      else fit_x.push_back(x[i]), fit_y.push_back(labels[i]);
    }
    CostModel check(seed);
    if (auto fitted = check.train(fit_x, fit_y); !fitted) return fitted.failure();
    auto guessed = check.predict(test_x);
    if (!guessed) return guessed.failure();
    holdout_rank = rank_correlation(*guessed, test_y);
    auto r = model.train(x, labels);
    if (!r) return r.failure();
    trained_on = x.size();
    return success();
  }

  double rank() const {
    size_t n = std::min<size_t>(64, predicted.size());
    return rank_correlation(std::vector<double>(predicted.end() - long(n), predicted.end()),
                            std::vector<double>(measured.end() - long(n), measured.end()));
  }
};

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

  // The model starts from every measured candidate of this kernel at any size here.
  Learner learner(s.seed);
  auto samples = cache.training_samples(w.structure, target, kFeatureVersion);
  if (!samples) return samples.failure();
  for (TrainingSample& t : *samples) learner.add(FeatureRows{t.rows, std::move(t.features)}, t.workload_key, t.median_ms);
  if (Status st = learner.maybe_train(); !st) return st.failure();
  const std::vector<MappingPass>& passes = find_target("cpu")->mapping_passes;
  auto features_of = [&](const Candidate& c) -> std::optional<FeatureRows> {
    auto lowered = lower_to_loop_nest(*k.def, k.shapes, c.options, passes);
    if (!lowered) return std::nullopt;
    return extract_features(*k.def, k.shapes, lowered->nest);
  };

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
    // With a model: draw four times what is needed, keep the best predicted and a few at
    // random (the epsilon share); the others may be drawn again later.
    int room = want - int(batch.size());
    std::vector<Candidate> pool = space.next(rng, parents, learner.model.trained() ? 4 * room : room);
    std::vector<FeatureRows> pool_features;
    std::vector<Candidate> lowered;
    for (Candidate& c : pool) {
      if (auto f = features_of(c)) lowered.push_back(std::move(c)), pool_features.push_back(std::move(*f));
      else ++space.rejected;  // the compiler refuses it: no trial spent
    }
    std::vector<double> scores(lowered.size(), 0.0);
    if (learner.model.trained()) {
      auto predicted = learner.model.predict(pool_features);
      if (!predicted) return predicted.failure();
      scores = *predicted;
    }
    std::vector<size_t> order(lowered.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
    int random_share = learner.model.trained() ? std::max(1, room / 16) : 0;
    std::vector<size_t> chosen(order.begin(), order.begin() + std::min<long>(long(order.size()), room - random_share));
    for (int r = 0; r < random_share && chosen.size() < order.size(); ++r) {
      std::vector<size_t> rest;
      for (size_t i : order)
        if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) rest.push_back(i);
      chosen.push_back(rest[rng() % rest.size()]);
    }
    std::vector<FeatureRows> batch_features(batch.size());
    for (Candidate& c : batch) batch_features[size_t(&c - batch.data())] = features_of(c).value_or(FeatureRows{});
    std::vector<std::optional<double>> batch_scores(batch.size());  // the model's, when it chose
    for (size_t i : chosen) {
      batch.push_back(lowered[i]);
      batch_features.push_back(pool_features[i]);
      batch_scores.push_back(learner.model.trained() ? std::optional(scores[i]) : std::nullopt);
    }
    for (size_t i = 0; i < lowered.size(); ++i)
      if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) space.seen.erase(lowered[i].json);
    if (batch.empty()) {
      result.stopped_because = "search space exhausted";
      break;
    }
    std::optional<double> best_before = p.best_ms;
    std::vector<Trial> trials;
    for (const Candidate& c : batch) {
      if (cancel && cancel->load()) break;
      size_t index = size_t(&c - batch.data());
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
      t.predicted = batch_scores[index];
      t.feature_rows = batch_features[index].rows;
      t.features = batch_features[index].data;
      if (t.feature_rows > 0) learner.add(batch_features[index], w.key, t.median_ms);
      if (batch_scores[index] && t.median_ms) {
        learner.predicted.push_back(*batch_scores[index]);
        learner.measured.push_back(1 / *t.median_ms);
        p.model_online_rank = learner.rank();
      }
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
    // Between rounds, never while measuring.
    size_t before_training = learner.trained_on;
    if (Status st = learner.maybe_train(); !st) return st.failure();
    p.model_samples = int(learner.trained_on);
    p.model_rank = learner.holdout_rank;
    if (learner.trained_on != before_training) {
      auto blob = learner.model.save();
      if (!blob) return blob.failure();
      std::string metrics = "{\"holdout_rank_correlation\": " + std::to_string(p.model_rank) +
                            ", \"chosen_rank_correlation\": " + std::to_string(p.model_online_rank) +
                            ", \"chosen_trials\": " + std::to_string(std::min<size_t>(64, learner.predicted.size())) + "}";
      if (Status st = cache.save_cost_model(target, kFeatureVersion, CostModel::xgboost_version(),
                                            "{\"objective\": \"pack-sum\", \"max_depth\": 6, \"eta\": 0.2, \"nthread\": 1}",
                                            int(learner.trained_on), 80, 0, metrics, *blob);
          !st)
        return st.failure();
    }
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
