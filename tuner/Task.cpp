#include "tuner/Task.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "poly/Lowering.h"
#include "runtime/Timing.h"
#include "support/Json.h"
#include "targets/Target.h"
#include "loopnest/LoopNest.h"
#include "tuner/Features.h"

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
  w.field("overlap", s.overlap);
  w.field("cold", s.cold);
  w.key("start");
  w.begin_array();
  for (const MappingOptions& o : s.start) w.value(mapping_options_to_json(o));
  w.end_array();
  w.field("search", "the starting options and presets, then sketch samples and moves on the fastest (tile sizes from factorisations); a model-scored population of 4x the batch plus one generation bred from its best predicted");
  w.end_object();
  return w.str();
}

// A candidate this much slower than the best so far is timed with one run (tuner/Worker.cpp).
constexpr double kCutoffFactor = 10;

std::string number(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// TuneResult::chosen for the final turns: `fastest` among `finalists`, `held` the fastest
// incumbent (the stored best when `held_is_stored`, else a starting option).
std::string choice_text(size_t finalists, const std::optional<std::pair<std::string, Timing>>& fastest,
                        const std::optional<std::pair<std::string, Timing>>& held, double margin, bool held_is_stored) {
  if (!fastest) return "";
  auto ms = [](double v) { return number(v, 4) + " ms"; };
  if (!held) return "the fastest of " + std::to_string(finalists) + " finalists timed in turns";
  const std::string who = held_is_stored ? "the stored best" : "the starting options";
  if (held->first == fastest->first) return who + " (" + ms(held->second.median_ms) + "), fastest of the finalists";
  double gain = held->second.median_ms / fastest->second.median_ms - 1;
  std::string figures = " (" + ms(fastest->second.median_ms) + " against " + ms(held->second.median_ms) + ", " +
                        number(100 * gain, 2) + " % faster";
  if (gain > margin) return "a newcomer displaced " + who + figures + ")";
  return "kept " + who + ": the fastest newcomer was within noise" + figures + "; a newcomer must be " +
         number(100 * margin, 2) + " % faster)";
}

}  // namespace

Task::Task(TuningCache& cache, const KernelSetup& kernel, const TuneSettings& settings, WorkerProcess& worker)
    : cache_(cache), kernel_(kernel), settings_(settings), worker_(worker), space_(kernel), learner_(settings.seed),
      rng_(settings.seed) {
  workload_ = workload_of(kernel);
  threads_ = settings.threads > 0 ? settings.threads : int(std::max(1u, std::thread::hardware_concurrency()));
  target_ = tuning_target(find_target("cpu")->identify(), threads_, settings.cold);
}

Status Task::start() {
  auto known = cache_.measured_options(workload_, target_);
  if (!known) return known.failure();
  space_.seen = *known;
  progress_.known = int(known->size());
  auto programs = cache_.measured_programs(workload_, target_);
  if (!programs) return programs.failure();
  programs_.insert(programs->begin(), programs->end());
  auto session = cache_.begin_session(workload_, target_, settings_.seed, settings_json(settings_), settings_.app_version);
  if (!session) return session.failure();
  session_ = *session;
  auto best = cache_.best(workload_, target_);
  if (!best) return best.failure();
  if (*best) best_before_ = (*best)->options_json;
  queued_ = space_.starts(settings_.start);
  // A start an earlier session measured (one killed or cancelled before its final turns, or
  // a tuning run again from the same hand sets) is not measured again, but it is still one
  // of the options this session was handed: its figure from then makes it an incumbent
  // and, near the fastest, a finalist.
  for (const MappingOptions& o : settings_.start) {
    std::string json = mapping_options_to_json(o);
    if (!known->contains(json)) continue;
    auto ms = cache_.fastest_median(workload_, target_, json);
    if (!ms) return ms.failure();
    if (*ms) started_.push_back({json, **ms});
  }
  for (Candidate& c : space_.presets()) queued_.push_back(std::move(c));
  auto fastest = cache_.fastest(workload_, target_, 16);
  if (!fastest) return fastest.failure();
  fastest_ = *fastest;
  if (!fastest_.empty()) progress_.best_ms = fastest_.front().second;
  auto samples = cache_.training_samples(workload_.structure, target_, kFeatureVersion);
  if (!samples) return samples.failure();
  for (TrainingSample& t : *samples) learner_.add(FeatureRows{t.rows, std::move(t.features)}, t.workload_key, t.median_ms);
  if (auto trained = learner_.maybe_train(); !trained) return trained.failure();
  progress_.model_samples = learner_.trained_on();
  progress_.model_rank = learner_.holdout_rank();
  return success();
}

// Each candidate lowered without LLVM on every core (each lowering has its own isl
// context): its feature rows and its program; none where the compiler refuses the
// options. A candidate lowered before in this session is answered from lowered_.
std::vector<std::optional<Task::Lowered>> Task::lower(const std::vector<Candidate>& cs) {
  const std::vector<MappingPass>& passes = find_target("cpu")->mapping_passes;
  std::vector<std::optional<Lowered>> out(cs.size());
  std::vector<size_t> fresh;
  for (size_t i = 0; i < cs.size(); ++i)
    if (auto known = lowered_.find(cs[i].json); known != lowered_.end()) out[i] = known->second;
    else fresh.push_back(i);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t j; (j = next++) < fresh.size();) {
      size_t i = fresh[j];
      auto lowered = lower_to_loop_nest(*kernel_.def, kernel_.shapes, cs[i].options, passes);
      if (lowered)
        out[i] = Lowered{extract_features(*kernel_.def, kernel_.shapes, lowered->nest),
                         program_key(lowered->nest)};
    }
  };
  size_t helpers = std::min<size_t>(fresh.size(), std::max(1u, std::thread::hardware_concurrency())) - (fresh.empty() ? 0 : 1);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < helpers; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  for (size_t i : fresh) lowered_.emplace(cs[i].json, out[i]);
  return out;
}

// The round's candidates: the starting options and the presets first, as many rounds as
// they fill; then, without a model, the draws as they come. With one, an evolution scored
// by the model (Ansor's, in small): a population of four times what is needed bred from
// the measured fastest, then one more generation bred from the population's best
// predicted; the round measures the best predicted of all plus a random few. Those not
// chosen may be drawn again later. Features, scores and programs of the chosen are kept
// in features_, scores_ and programs_chosen_.
std::vector<Candidate> Task::choose(int want) {
  features_.clear();
  scores_.clear();
  programs_chosen_.clear();
  // Starting options and presets that make a program measured already, or another one's,
  // are left out (and more are taken from the queue); one the compiler refuses is
  // measured, to record why.
  std::vector<Candidate> batch;
  while (int(batch.size()) < want && !queued_.empty()) {
    long take = std::min<long>(want - long(batch.size()), long(queued_.size()));
    std::vector<Candidate> next(std::make_move_iterator(queued_.begin()), std::make_move_iterator(queued_.begin() + take));
    queued_.erase(queued_.begin(), queued_.begin() + take);
    std::vector<std::optional<Lowered>> lowered = lower(next);
    for (size_t i = 0; i < next.size(); ++i) {
      if (lowered[i] && !programs_.insert(lowered[i]->program).second) {
        ++space_.same_program;
        continue;
      }
      batch.push_back(std::move(next[i]));
      features_.push_back(lowered[i] ? lowered[i]->rows : FeatureRows{});
      scores_.push_back(std::nullopt);
      programs_chosen_.push_back(lowered[i] ? lowered[i]->program : "");
    }
  }
  // Parents: the fastest measured, or in a fresh first round the presets themselves.
  std::vector<std::string> parents;
  for (const auto& [options, ms] : fastest_) parents.push_back(options);
  if (parents.empty())
    for (const Candidate& c : batch) parents.push_back(c.json);
  bool ranked = learner_.model().trained();
  int room = want - int(batch.size());
  std::vector<Candidate> pool;
  std::vector<FeatureRows> pool_features;
  std::vector<std::string> pool_programs;
  std::unordered_set<std::string> in_pool;
  std::vector<double> scores;
  // Draws the compiler refuses, and draws whose program is measured, chosen or in the pool,
  // cost no trial; more are drawn, until four draws in a row add nothing (or sixteen in
  // all). A repeated program stays seen: its options are never proposed again.
  auto breed = [&](const std::vector<std::string>& from, int count, double epsilon) {
    size_t before = pool.size();
    for (int attempt = 0, barren = 0; attempt < 16 && barren < 4 && int(pool.size() - before) < count; ++attempt) {
      size_t had = pool.size();
      std::vector<Candidate> drawn = space_.next(rng_, from, count - int(pool.size() - before), epsilon);
      std::vector<std::optional<Lowered>> f = lower(drawn);
      for (size_t i = 0; i < drawn.size(); ++i) {
        if (!f[i]) {
          ++space_.rejected, space_.seen.erase(drawn[i].json);
        } else if (programs_.count(f[i]->program) || !in_pool.insert(f[i]->program).second) {
          ++space_.same_program;
        } else {
          pool.push_back(std::move(drawn[i]));
          pool_features.push_back(std::move(f[i]->rows));
          pool_programs.push_back(std::move(f[i]->program));
        }
      }
      barren = pool.size() == had ? barren + 1 : 0;
    }
    scores.resize(pool.size(), 0.0);
    if (!ranked || pool.size() == before) return;
    std::vector<FeatureRows> fresh(pool_features.begin() + long(before), pool_features.end());
    if (auto predicted = learner_.model().predict(fresh))
      std::copy(predicted->begin(), predicted->end(), scores.begin() + long(before));
  };
  auto best_first = [&] {
    std::vector<size_t> order(pool.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
    return order;
  };
  // A session's first draws lean on fresh sketch samples; later ones on moves of the fastest.
  double epsilon = fastest_.empty() ? 0.5 : 0.1;
  breed(parents, ranked ? 4 * room : room, epsilon);

  if (ranked && room > 0) {
    std::vector<std::string> predicted_best;
    std::vector<size_t> order = best_first();
    for (size_t i = 0; i < order.size() && i < size_t(room); ++i) predicted_best.push_back(pool[order[i]].json);
    breed(predicted_best, 2 * room, 0.1);
  }
  std::vector<size_t> order = best_first();
  int random_share = ranked && room > 0 ? std::max(1, room / 16) : 0;
  long keep = std::clamp<long>(room - random_share, 0, long(order.size()));
  std::vector<size_t> chosen(order.begin(), order.begin() + keep);
  std::vector<size_t> rest(order.begin() + long(chosen.size()), order.end());
  for (int r = 0; r < random_share && !rest.empty(); ++r) {
    size_t pick = rng_() % rest.size();
    chosen.push_back(rest[pick]);
    rest.erase(rest.begin() + long(pick));
  }
  for (size_t i : chosen) {
    programs_.insert(pool_programs[i]);
    batch.push_back(pool[i]);
    features_.push_back(pool_features[i]);
    scores_.push_back(ranked ? std::optional(scores[i]) : std::nullopt);
    programs_chosen_.push_back(pool_programs[i]);
  }
  for (size_t i : rest) space_.seen.erase(pool[i].json);
  progress_.same_program = space_.same_program;
  return batch;
}

std::pair<MeasureJob, double> Task::job_for(const std::string& options, int min_calls, double min_total_ms, bool check) {
  MeasureJob job;
  job.id = next_job_++;
  job.source = kernel_.checked->file.text();
  job.entry = kernel_.def->name;
  job.sizes = kernel_.shapes.sizes;
  job.options_json = options;
  job.threads = threads_;
  job.check = check;
  job.min_calls = min_calls;
  job.min_total_ms = min_total_ms;
  job.cutoff_ms = check && progress_.best_ms ? kCutoffFactor * *progress_.best_ms : 0;
  job.cold = settings_.cold;
  // A slow kernel timed many times needs longer than the per-candidate limit.
  double timeout = settings_.timeout_s;
  if (progress_.best_ms) timeout = std::max(timeout, 2 * ((min_calls + 3) * *progress_.best_ms + min_total_ms) / 1e3);
  return {std::move(job), timeout};
}

// The host's pace. On a shared machine the same program's time wanders by more than the
// candidates of a round differ: conv's default timed 25 times in 20 s read 0.90 to 1.09 ms,
// drifting up, while half of 200 conv trials lay within 6 % of their median. Timed at
// different moments, the trials' order was partly the machine's, and the cost model
// learned it (held-out rank 0.63 in one session, 0.72 in the next). So one fixed program,
// the fastest when pacing begins, is timed again every few seconds, and the learner takes
// each trial's time over that program's drift since its own trial; the median of the last
// three timings, so that one unlucky timing does not shift a whole round. Labels so taken
// were learned better than the raw times of the same sessions: by 0.11 of rank at 192
// conv trials where the host drifted by a tenth, by about nothing where it held steady.
// The cache keeps the times as measured.
bool Task::pace_due() const {
  if (pace_.options.empty() && fastest_.empty()) return false;  // nothing measured yet to pace by
  return std::chrono::steady_clock::now() - pace_.last >= std::chrono::duration<double>(settings_.pace_every_s);
}

void Task::take_pace(const MeasureReply& reply) {
  pace_.last = std::chrono::steady_clock::now();
  // A failed timing, or one far off (a burst that caught this one call), keeps the last pace.
  if (reply.status != TrialStatus::Ok || !reply.median_ms) return;
  double drift = *reply.median_ms / pace_.reference_ms;
  if (!(drift > 0.5 && drift < 2)) return;
  pace_.recent.push_back(drift);
  if (pace_.recent.size() > 3) pace_.recent.erase(pace_.recent.begin());
  progress_.pace = median_of(pace_.recent);
}

Expected<bool> Task::round(int want, const std::atomic<bool>* cancel,
                           const std::function<void(const TuneProgress&)>& on_trial) {
  std::vector<Candidate> batch = choose(want);
  if (batch.empty()) {
    stopped_ = "search space exhausted";
    return false;
  }
  TuneProgress& p = progress_;
  std::optional<double> best_before = p.best_ms;
  std::vector<Trial> trials;
  // Candidates are sent ahead, one per core and one more, so the worker compiles and
  // checks them side by side while it is not timing (tuner/Worker.h). A cancel lets those
  // sent finish.
  size_t ahead = settings_.overlap ? std::max(1u, std::thread::hardware_concurrency()) + 1 : 1;
  // The pace job goes first, like a candidate, so its compile overlaps a timing too.
  bool pacing = pace_due();
  if (pacing && pace_.options.empty()) pace_.options = fastest_.front().first, pace_.reference_ms = fastest_.front().second;
  size_t first = pacing ? 1 : 0;  // the batch's first job
  size_t jobs = first + batch.size(), sent = 0;
  for (size_t j = 0; j < jobs; ++j) {
    for (; sent < jobs && sent < j + ahead && !(cancel && cancel->load()); ++sent) {
      auto [job, timeout] = sent < first ? job_for(pace_.options, 5, 100, false) : job_for(batch[sent - first].json, 5, 100, true);
      worker_.send(job, timeout);
    }
    if (j == sent) break;
    auto reply = worker_.receive();
    if (!reply) return reply.failure();
    if (j < first) {
      take_pace(*reply);
      continue;
    }
    size_t i = j - first;
    Trial t;
    t.options_json = batch[i].json;
    t.origin = batch[i].origin;
    t.round = p.round;
    t.status = reply->status;
    t.message = reply->message;
    t.median_ms = reply->median_ms;
    t.repeats_ms = reply->repeats_ms;
    t.compile_ms = reply->compile_ms;
    t.threads = threads_;
    t.predicted = scores_[i];
    t.program = programs_chosen_[i];
    t.feature_rows = features_[i].rows;
    t.features = features_[i].data;
    if (t.feature_rows > 0)
      learner_.add(features_[i], workload_.key, t.median_ms ? std::optional(*t.median_ms / p.pace) : std::nullopt);
    if (scores_[i] && t.median_ms) {
      learner_.add_prediction(*scores_[i], *t.median_ms);
      p.model_online_rank = learner_.chosen_rank();
    }
    ++p.trials;
    if (t.status == TrialStatus::Ok && t.origin == "start") started_.push_back({t.options_json, *t.median_ms});
    if (t.status != TrialStatus::Ok) ++p.failures;
    else if (!p.best_ms || *t.median_ms < *p.best_ms) p.best_ms = t.median_ms;
    p.rejected = space_.rejected;
    p.best_gflops = p.best_ms ? workload_.flops / (*p.best_ms * 1e6) : 0;
    trials.push_back(std::move(t));
    if (on_trial) on_trial(p);
  }
  if (Status st = cache_.record_trials(session_, workload_, target_, trials); !st) return st.failure();
  if (Status st = learn(); !st) return st.failure();
  auto fastest = cache_.fastest(workload_, target_, 16);
  if (!fastest) return fastest.failure();
  fastest_ = *fastest;
  bool gained = p.best_ms && (!best_before || *p.best_ms < *best_before * 0.99);
  // Patience counts from the round that takes the last of the starting options and
  // presets: those were asked for, whatever they gain.
  quiet_rounds_ = gained || !queued_.empty() ? 0 : quiet_rounds_ + 1;
  if (p.best_ms) history_.push_back({p.trials, *p.best_ms});
  ++p.round;
  if (settings_.patience_rounds <= 0 || quiet_rounds_ < settings_.patience_rounds) return true;
  stopped_ = "no gain for " + std::to_string(settings_.patience_rounds) + " rounds";
  return false;
}

// Between rounds, never while a candidate runs.
Status Task::learn() {
  auto trained = learner_.maybe_train();
  if (!trained) return trained.failure();
  progress_.model_samples = learner_.trained_on();
  progress_.model_rank = learner_.holdout_rank();
  if (!*trained) return success();
  auto blob = learner_.model().save();
  if (!blob) return blob.failure();
  std::string metrics = "{\"holdout_rank_correlation\": " + std::to_string(progress_.model_rank) +
                        ", \"chosen_rank_correlation\": " + std::to_string(progress_.model_online_rank) + "}";
  const CostModelReport& r = learner_.last_training();
  return cache_.save_cost_model(target_, kFeatureVersion, CostModel::xgboost_version(), CostModel::params_json(),
                                learner_.trained_on(), r.rounds, r.train_ms, metrics, *blob);
}

// The fastest few trials, the cache's best record (the one a new winner must beat) and the
// starting options that came near the fastest are timed in turns: kFinalTurns turns of a
// third of the calls each, so that a burst of load from elsewhere on the machine falls on
// all of them alike rather than on whichever ran during it. A trial's own median came
// from a few calls at another moment; on a loaded 2-core host the fastest of them was
// often only the luckiest. A finalist's figure is the median of all its calls; one that
// fails in any turn is out.
Expected<std::vector<std::pair<std::string, Timing>>> Task::remeasure_finalists() {
  constexpr int kFinalTurns = 3;
  constexpr double kStartNear = 1.2;
  std::vector<std::string> options;
  for (int i = 0; i < std::min<int>(settings_.remeasure, int(fastest_.size())); ++i) options.push_back(fastest_[size_t(i)].first);
  auto best = cache_.best(workload_, target_);
  if (!best) return best.failure();
  // Every list holds options as mapping_options_to_json writes them (the cache stores that
  // text), so equal options are equal text.
  auto add = [&](const std::string& o) {
    if (std::find(options.begin(), options.end(), o) == options.end()) options.push_back(o);
  };
  if (settings_.remeasure > 0) {
    if (*best) add((*best)->options_json);
    // The options the session was started from (a hand grid's sets) whose trial in this
    // session came within a fifth of the fastest: one trial of each, at another moment
    // than the fastest's, can rank them either way by that much on a shared host, and a
    // search that ends slower than what it was handed has lost it to noise.
    for (const auto& [o, ms] : started_)
      if (!fastest_.empty() && ms <= fastest_.front().second * kStartNear) add(o);
  }
  std::vector<std::vector<double>> calls(options.size());
  std::vector<bool> failed(options.size(), false);
  for (int turn = 0; turn < kFinalTurns; ++turn)
    for (size_t i = 0; i < options.size(); ++i) {
      if (failed[i]) continue;
      auto [job, timeout] = job_for(options[i], 10, 170, false);
      auto reply = worker_.measure(job, timeout);
      if (!reply) return reply.failure();
      if (reply->status != TrialStatus::Ok) failed[i] = true;
      else calls[i].insert(calls[i].end(), reply->repeats_ms.begin(), reply->repeats_ms.end());
    }
  std::vector<std::pair<std::string, Timing>> out;
  for (size_t i = 0; i < options.size(); ++i)
    if (!failed[i] && !calls[i].empty()) {
      Timing t;
      t.median_ms = median_of(calls[i]);
      t.ms = std::move(calls[i]);
      out.emplace_back(options[i], std::move(t));
    }
  return out;
}

double Task::expected_gain() const {
  if (!progress_.best_ms || progress_.trials == 0) return INFINITY;
  double best = *progress_.best_ms;
  double backward = 0;
  if (history_.size() >= 2) {
    const auto& then = history_[history_.size() >= 4 ? history_.size() - 4 : 0];
    int trials = progress_.trials - then.first;
    if (trials > 0) backward = (then.second - best) / trials;
  }
  double forward = best / progress_.trials;  // as if the time kept falling as it has on average
  return 0.2 * backward + 0.8 * forward;
}

Expected<TuneResult> Task::finish(const std::string& stopped_because, bool cancelled) {
  TuneResult result;
  result.session = session_;
  result.stopped_because = stopped_because;
  std::optional<std::pair<std::string, Timing>> winner;
  if (!cancelled) {
    auto finalists = remeasure_finalists();
    if (!finalists) return finalists.failure();
    // The options the session was handed and the cache's best from before it are the
    // incumbents: a newcomer displaces the fastest of them only when its median is lower
    // by more than kClearlyFaster. Two programs within a few per cent rank either way from
    // one process to the next: kru3's tuned pick at one thread and the grid set it had
    // started from read 4.79-5.02 ms each in eight alternating CLI runs, and the benchmark,
    // in its own process, put the tuned one 4 % behind. A closer win would replace known
    // options on noise.
    constexpr double kClearlyFaster = 0.03;
    auto incumbent = [&](const std::string& o) {
      return o == best_before_ ||
             std::any_of(started_.begin(), started_.end(), [&](const auto& s) { return s.first == o; });
    };
    std::optional<std::pair<std::string, Timing>> held;
    for (auto& [options, t] : *finalists) {
      if (!winner || t.median_ms < winner->second.median_ms) winner = {{options, t}};
      if (incumbent(options) && (!held || t.median_ms < held->second.median_ms)) held = {{options, t}};
    }
    result.chosen = choice_text(finalists->size(), winner, held, kClearlyFaster, held && held->first == best_before_);
    if (held && winner->second.median_ms * (1 + kClearlyFaster) >= held->second.median_ms) winner = held;
  }
  if (winner) {
    if (Status st = cache_.set_best(workload_, target_, winner->first, winner->second.median_ms, int(winner->second.ms.size()));
        !st)
      return st.failure();
  }
  if (Status st = cache_.end_session(session_, cancelled ? "cancelled" : "finished"); !st) return st.failure();
  auto best = cache_.best(workload_, target_);
  if (!best) return best.failure();
  result.best = *best;
  result.progress = progress_;
  return result;
}

}  // namespace tcs::tuner
