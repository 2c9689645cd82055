#pragma once
// The tuning cache: one SQLite file that the tuner writes and the CLI, the IDE and the
// exporter read, several processes at once (WAL). Every measured trial is committed with
// its batch, so a killed session loses at most the batch in flight and a new one resumes
// from what is stored. A file that is corrupt, locked, read-only, of a newer schema or not
// a cache at all is reported (ErrorKind::Cache, naming the file) and never overwritten.
//
// Records are keyed by workload (tuner/Workload.h) and target (targets/TargetIdentity.h):
// a lookup on another machine, another size or another kernel finds nothing, and says so.
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "support/Expected.h"
#include "targets/TargetIdentity.h"
#include "tuner/CacheSchema.h"
#include "tuner/Workload.h"

namespace tcs::tuner {

// How a trial ended. Only Ok has a time; every other kind keeps its reason.
enum class TrialStatus { Ok, Invalid, CompileError, RuntimeFault, WrongResult, Crash, Timeout, OutOfMemory };
// "ok", "invalid", "compile-error", "runtime-fault", "wrong-result", "crash", "timeout", "out-of-memory"
std::string_view trial_status_name(TrialStatus s);
std::optional<TrialStatus> trial_status_from_name(std::string_view name);

// One candidate measured once.
struct Trial {
  std::string options_json;     // mapping options; stored in their canonical form
  std::string origin = "user";  // start, preset, "sketch: NAME", random, mutation, crossover, user, imported
  int round = 0;
  std::optional<double> predicted;  // the cost model's score when it was chosen
  TrialStatus status = TrialStatus::Ok;
  std::string message;              // why it failed
  std::optional<double> median_ms;  // Ok only
  std::vector<double> repeats_ms;   // every timed call
  std::optional<double> compile_ms;
  int threads = 1;
  int64_t measured_at = 0;  // Unix time in ms; 0: now
  // The program the options made: stable_hash_hex of its loop nest's text ("" unknown).
  std::string program;
  // The cost model's rows for this candidate (tuner/Features.h); rows 0: none.
  int feature_rows = 0;
  std::vector<float> features;
};

// What the cost model trains on: one measured candidate of a workload.
struct TrainingSample {
  std::string workload_key;
  int rows = 0;
  std::vector<float> features;
  std::optional<double> median_ms;  // none: it failed
};

struct BestRecord {
  std::string workload_key;
  std::string target_description;
  std::string options_json;
  double median_ms = 0;
  double gflops = 0;
  int verified_repeats = 0;  // timed calls behind median_ms
  int64_t updated_at = 0;
  int64_t candidate_id = 0;
};

struct WorkloadSummary {
  Workload workload;
  std::string target_description, target_fingerprint;
  int64_t candidates = 0, trials = 0, failures = 0;
  std::optional<double> best_ms;
  double best_gflops = 0;
  int64_t last_measured_at = 0;
};

struct CandidateSummary {
  int64_t id = 0;
  std::string options_json, origin;
  int64_t measurements = 0;
  std::optional<double> median_ms;  // the fastest Ok measurement
  std::string last_status, last_message;
};

struct SessionSummary {
  int64_t id = 0;
  uint64_t seed = 0;
  std::string settings_json, status, app_version;
  int64_t started_at = 0, ended_at = 0, trials = 0;
};

struct WorkloadDetail {
  WorkloadSummary summary;
  std::vector<CandidateSummary> top;  // fastest first, then the failures
  std::vector<SessionSummary> sessions;
};

struct ImportReport {
  int64_t lines = 0, candidates_added = 0, measurements_added = 0, duplicates = 0;
  std::vector<std::string> skipped;  // "line 12: ..." for lines that could not be used
};

class TuningCache {
 public:
  static constexpr int kSchemaVersion = kCacheSchemaVersion;

  struct OpenOptions {
    bool write = true;            // false: read only (CLI lookups); a missing file is an error
    int busy_timeout_ms = 10000;  // how long a writer waits for another's transaction
    int schema_version = kSchemaVersion;  // tests: create a file as an older build would
  };
  static Expected<std::unique_ptr<TuningCache>> open(const std::string& path, const OpenOptions& options);
  static Expected<std::unique_ptr<TuningCache>> open(const std::string& path) { return open(path, OpenOptions{}); }
  ~TuningCache();

  const std::string& path() const { return path_; }
  int schema_version() const { return schema_version_; }

  // --- writing (the tuner) ---
  Expected<int64_t> begin_session(const Workload& w, const TargetIdentity& t, uint64_t seed, const std::string& settings_json,
                                  const std::string& app_version);
  Status end_session(int64_t session, std::string_view status);  // finished, cancelled, failed
  // Stores a batch in one transaction and updates the best record when an Ok trial beats
  // it. A candidate measured before (same options) gets another measurement, not a copy.
  Status record_trials(int64_t session, const Workload& w, const TargetIdentity& t, const std::vector<Trial>& trials);
  // The winner after re-measuring with more repeats: replaces the best record.
  Status set_best(const Workload& w, const TargetIdentity& t, const std::string& options_json, double median_ms,
                  int verified_repeats);

  // --- reading ---
  // The best options for this workload on this target, or none (the caller says it uses
  // its default: there is never a silent fallback).
  Expected<std::optional<BestRecord>> best(const Workload& w, const TargetIdentity& t);
  // Canonical options already measured (any outcome): a resumed search skips them.
  Expected<std::set<std::string>> measured_options(const Workload& w, const TargetIdentity& t);
  // The programs (Trial::program) of candidates already measured: a resumed search skips
  // other options that make one of them. A program that only timed out or ran out of memory
  // is left out: those depend on the machine's load then, so other options may try it again.
  Expected<std::set<std::string>> measured_programs(const Workload& w, const TargetIdentity& t);
  // The k fastest measured candidates (options, best Ok median), fastest first: what
  // seeds each round of the search and what is re-measured before a winner is declared.
  Expected<std::vector<std::pair<std::string, double>>> fastest(const Workload& w, const TargetIdentity& t, int k);
  // The best Ok median measured for these (canonical) options, or none.
  Expected<std::optional<double>> fastest_median(const Workload& w, const TargetIdentity& t, const std::string& options_json);
  // Every measured candidate with features of `feature_version`, of every workload with
  // this structure (the same kernel at any sizes) on this target: a new workload's search
  // starts from a model trained on its siblings.
  Expected<std::vector<TrainingSample>> training_samples(const std::string& structure, const TargetIdentity& t,
                                                         int feature_version);
  // A trained model with how it was trained and how well it ranks held-out trials.
  Status save_cost_model(const TargetIdentity& t, int feature_version, const std::string& xgboost_version,
                         const std::string& params_json, int samples, int rounds, double train_ms,
                         const std::string& metrics_json, const std::string& model_json);
  Expected<std::vector<WorkloadSummary>> list();
  // `key`: a workload key or a unique prefix of one; one detail per target it was tuned
  // for. Errors name the matching keys when the prefix is ambiguous.
  Expected<std::vector<WorkloadDetail>> show(const std::string& key, int top_k);

  // --- sharing ---
  // One JSON object per line and candidate, with its workload, target and measurements.
  Expected<int64_t> export_lines(std::ostream& out);
  // Merges by key: workloads by canonical text, targets by fingerprint, candidates by
  // options; measurements already present are not added twice; a faster best wins.
  Expected<ImportReport> import_lines(std::istream& in);
  Status vacuum();

 private:
  TuningCache(std::string path, std::unique_ptr<sql::Database> db, int version);
  int64_t workload_id(const Workload& w);  // inserts when new
  int64_t target_id(const TargetIdentity& t);
  std::optional<int64_t> find_workload(const std::string& canonical);
  std::optional<int64_t> find_target(const std::string& fingerprint);
  int64_t candidate_id(int64_t workload, int64_t target, const std::string& options, const std::string& origin,
                       std::optional<int64_t> session, int round, std::optional<double> predicted);
  void update_best(int64_t workload, int64_t target, int64_t candidate, double median_ms, int repeats, int64_t at,
                   bool replace);
  WorkloadDetail detail(int64_t workload, int64_t target, int top_k);
  bool keeps_programs() const { return schema_version_ >= 3; }  // candidates.program came with version 3
  // fastest() and fastest_median(): all candidates, or the one with these options.
  Expected<std::vector<std::pair<std::string, double>>> fastest_where(const Workload& w, const TargetIdentity& t, int k,
                                                                     const std::string* options_json);
  // The distinct values of `column` (a candidates column; nulls left out) over the
  // candidates of `w` on `t` measured at least once; with `load_failures` false, a
  // measurement that timed out or ran out of memory does not count.
  Expected<std::set<std::string>> measured_candidates(const Workload& w, const TargetIdentity& t, const std::string& column,
                                                      bool load_failures);
  template <class F>
  auto guarded(F&& body) -> Expected<decltype(body())>;

  std::string path_;
  std::unique_ptr<sql::Database> db_;
  int schema_version_ = 0;
  int busy_timeout_ms_ = 0;
};

// The cache file used when none is named: $XDG_DATA_HOME/tcstudio/cache.sqlite, or
// ~/.local/share/tcstudio/cache.sqlite.
std::string default_cache_path();

// A record's time (Unix ms) as local "2026-11-23 14:05", for people.
std::string local_time_text(int64_t unix_ms);

// The canonical text of mapping options (parsed, validated, written back), so the same
// options are the same record however they were spelled. Errors: Options.
Expected<std::string> canonical_options(std::string_view json);

}  // namespace tcs::tuner
