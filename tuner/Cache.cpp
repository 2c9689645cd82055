#include "tuner/Cache.h"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <istream>
#include <ostream>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "options/MappingOptions.h"
#include "support/StableHash.h"
#include "tuner/Features.h"
#include "tuner/Sqlite.h"

namespace tcs::tuner {

namespace fs = std::filesystem;
using json = nlohmann::json;
using sql::Statement;

namespace {

constexpr const char* kStatusNames[] = {"ok",    "invalid", "compile-error", "runtime-fault", "wrong-result",
                                        "crash", "timeout", "out-of-memory"};

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// What went wrong with the file, in words a user can act on; the file is never touched.
Error cache_error(const std::string& path, const sql::SqlError& e, int busy_timeout_ms) {
  std::string what;
  switch (e.code) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      what = "is locked by another process (waited " + std::to_string(busy_timeout_ms / 1000.0).substr(0, 4) +
             " s); try again when it has finished";
      break;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      what = "is corrupt or truncated (SQLite: " + std::string(e.what()) +
             "); it was left as it is: move it away to start a new cache, or pass another --db";
      break;
    case SQLITE_READONLY:
      what = "is read-only (SQLite: " + std::string(e.what()) + "); pass --db with a file you can write";
      break;
    case SQLITE_FULL: what = "cannot grow: the disk is full"; break;
    case SQLITE_CANTOPEN: what = "cannot be opened (SQLite: " + std::string(e.what()) + ")"; break;
    default: what = "failed (SQLite: " + std::string(e.what()) + ")";
  }
  return Error{ErrorKind::Cache, "tuning cache " + path + " " + what};
}

Error refused(const std::string& path, const std::string& why) {
  return Error{ErrorKind::Cache, "tuning cache " + path + " " + why + "; it was left as it is"};
}

// "file:" URI of a path, for the query parameters a read-only open may need.
std::string file_uri(const std::string& path, const std::string& query) {
  std::string uri = "file:";
  for (char c : fs::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#') {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", unsigned(static_cast<unsigned char>(c)));
      uri += buf;
    } else {
      uri += c;
    }
  }
  return query.empty() ? uri : uri + "?" + query;
}

// Refuses files SQLite would open but that are not databases: an empty file is a new
// cache, anything else must start with SQLite's header.
std::optional<std::string> foreign_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[16] = {};
  in.read(header, sizeof header);
  std::streamsize got = in.gcount();
  if (got == 0) return std::nullopt;
  if (got < 16 || std::string(header, 16) != std::string("SQLite format 3\0", 16))
    return "is not a TC Studio tuning cache (not an SQLite database)";
  return std::nullopt;
}

std::string repeats_json(const std::vector<double>& repeats) { return json(repeats).dump(); }

}  // namespace

std::string_view trial_status_name(TrialStatus s) { return kStatusNames[int(s)]; }

std::optional<TrialStatus> trial_status_from_name(std::string_view name) {
  for (int i = 0; i < int(std::size(kStatusNames)); ++i)
    if (name == kStatusNames[i]) return TrialStatus(i);
  return std::nullopt;
}

Expected<std::string> canonical_options(std::string_view text) {
  auto o = mapping_options_from_json(text);
  if (!o) return o.failure();
  return mapping_options_to_json(*o);
}

std::string local_time_text(int64_t unix_ms) {
  std::time_t t = std::time_t(unix_ms / 1000);
  std::tm local{};
  localtime_r(&t, &local);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &local);
  return buf;
}

std::string default_cache_path() {
  const char* xdg = std::getenv("XDG_DATA_HOME");
  std::string base;
  if (xdg && xdg[0] == '/') {
    base = xdg;
  } else {
    const char* home = std::getenv("HOME");
    base = std::string(home && *home ? home : ".") + "/.local/share";
  }
  return base + "/tcstudio/cache.sqlite";
}

TuningCache::TuningCache(std::string path, std::unique_ptr<sql::Database> db, int version)
    : path_(std::move(path)), db_(std::move(db)), schema_version_(version) {}

TuningCache::~TuningCache() = default;

template <class F>
auto TuningCache::guarded(F&& body) -> Expected<decltype(body())> {
  try {
    return body();
  } catch (const sql::SqlError& e) {
    return cache_error(path_, e, busy_timeout_ms_);
  } catch (const json::exception& e) {
    return Error{ErrorKind::Internal, "tuning cache " + path_ + ": " + e.what()};
  }
}

Expected<std::unique_ptr<TuningCache>> TuningCache::open(const std::string& path, const OpenOptions& o) {
  std::error_code ec;
  bool exists = fs::exists(path, ec);
  if (exists && fs::is_directory(path, ec)) return refused(path, "is a directory, not a file");
  if (!exists && !o.write)
    return Error{ErrorKind::Cache, "there is no tuning cache at " + path + " (nothing has been tuned into it yet)"};
  if (exists) {
    if (auto why = foreign_header(path)) return refused(path, *why);
    if (o.write && ::access(path.c_str(), W_OK) != 0)
      return refused(path, "is read-only, so results cannot be saved to it; pass --db with a file you can write");
  } else {
    fs::path parent = fs::absolute(path).parent_path();
    fs::create_directories(parent, ec);
    if (ec) return Error{ErrorKind::Cache, "cannot create the folder of tuning cache " + path + ": " + ec.message()};
  }
  try {
    std::unique_ptr<sql::Database> db;
    if (o.write) {
      db = std::make_unique<sql::Database>(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    } else {
      try {
        db = std::make_unique<sql::Database>(file_uri(path, "mode=ro"), SQLITE_OPEN_READONLY);
        db->query_int("SELECT count(*) FROM sqlite_master");
      } catch (const sql::SqlError& e) {
        // A WAL file in a folder we cannot write (no -shm to create): nobody else can
        // write it either, so reading it as immutable is safe.
        if (e.code != SQLITE_CANTOPEN && e.code != SQLITE_READONLY) throw;
        // Immutable reading ignores a write-ahead log: refuse rather than miss its records.
        if (fs::exists(path + "-wal", ec) && fs::file_size(path + "-wal", ec) > 0)
          return refused(path, "is read-only and has records still in its write-ahead log (" + path +
                                   "-wal) that only a writer can fold in; open it once with write access");
        db = std::make_unique<sql::Database>(file_uri(path, "immutable=1"), SQLITE_OPEN_READONLY);
      }
    }
    sqlite3_busy_timeout(db->handle(), o.busy_timeout_ms);
    int64_t app = db->query_int("PRAGMA application_id");
    int64_t version = db->query_int("PRAGMA user_version");
    int64_t objects = db->query_int("SELECT count(*) FROM sqlite_master");
    if (app != kCacheApplicationId && !(app == 0 && objects == 0))
      return refused(path, "is an SQLite database of another program (" + std::to_string(objects) +
                               " tables and indexes), not a TC Studio tuning cache");
    if (version > o.schema_version)
      return refused(path, "was written by a newer TC Studio (cache schema " + std::to_string(version) +
                               "; this build reads up to " + std::to_string(o.schema_version) + ")");
    std::string check = db->query_text("PRAGMA quick_check(1)");
    if (check != "ok") return refused(path, "is corrupt (SQLite's check: " + check + "); move it away to start a new cache");
    if (o.write) {
      db->exec("PRAGMA journal_mode = WAL");
      db->exec("PRAGMA synchronous = NORMAL");
      db->exec("PRAGMA foreign_keys = ON");
      if (version < o.schema_version) {
        sql::Transaction tx(*db);
        int64_t now = db->query_int("PRAGMA user_version");  // another process may have upgraded it meanwhile
        if (now < o.schema_version) {
          cache_migrate(*db, int(now), o.schema_version);
          sql::Statement meta(db->handle(), "INSERT OR REPLACE INTO meta(key, value) VALUES ('upgraded_at', ?1)");
          meta.bind(1, std::to_string(now_ms())).run();
        }
        tx.commit();
        version = o.schema_version;
      }
    } else if (version < std::min(o.schema_version, kCacheOldestReadable)) {
      return refused(path, version == 0 ? std::string("is empty: nothing has been tuned into it yet")
                                        : "has the older cache schema " + std::to_string(version) +
                                              "; run a command that writes to it (tune, cache import) to upgrade it");
    }
    auto cache = std::unique_ptr<TuningCache>(new TuningCache(path, std::move(db), int(version)));
    cache->busy_timeout_ms_ = o.busy_timeout_ms;
    return cache;
  } catch (const sql::SqlError& e) {
    return cache_error(path, e, o.busy_timeout_ms);
  }
}

// ---------------------------------------------------------------------------- keys

std::optional<int64_t> TuningCache::find_workload(const std::string& canonical) {
  Statement s(db_->handle(), "SELECT workload_id FROM workloads WHERE canonical = ?1");
  s.bind(1, canonical);
  if (s.step()) return s.int64(0);
  return std::nullopt;
}

std::optional<int64_t> TuningCache::find_target(const std::string& fingerprint) {
  Statement s(db_->handle(), "SELECT target_id FROM targets WHERE fingerprint = ?1");
  s.bind(1, fingerprint);
  if (s.step()) return s.int64(0);
  return std::nullopt;
}

int64_t TuningCache::workload_id(const Workload& w) {
  if (auto id = find_workload(w.canonical)) return *id;
  Statement s(db_->handle(),
              "INSERT INTO workloads(workload_key, canonical, structure, entry, source, sizes, signature, flops, created_at)"
              " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  s.bind(1, stable_hash_hex(w.canonical)).bind(2, w.canonical).bind(3, w.structure).bind(4, w.entry).bind(5, w.source);
  s.bind(6, w.sizes).bind(7, w.signature).bind(8, w.flops).bind(9, now_ms()).run();
  return db_->last_insert_id();
}

int64_t TuningCache::target_id(const TargetIdentity& t) {
  if (auto id = find_target(t.fingerprint)) return *id;
  Statement s(db_->handle(), "INSERT INTO targets(kind, fingerprint, description, created_at) VALUES (?1, ?2, ?3, ?4)");
  s.bind(1, t.target).bind(2, t.fingerprint).bind(3, t.description).bind(4, now_ms()).run();
  return db_->last_insert_id();
}

int64_t TuningCache::candidate_id(int64_t workload, int64_t target, const std::string& options, const std::string& origin,
                                  std::optional<int64_t> session, int round, std::optional<double> predicted) {
  Statement find(db_->handle(), "SELECT candidate_id FROM candidates WHERE workload_id = ?1 AND target_id = ?2 AND options = ?3");
  find.bind(1, workload).bind(2, target).bind(3, options);
  if (find.step()) return find.int64(0);
  Statement s(db_->handle(),
              "INSERT INTO candidates(workload_id, target_id, options, origin, session_id, round, predicted, created_at)"
              " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  s.bind(1, workload).bind(2, target).bind(3, options).bind(4, origin);
  if (session) s.bind(5, *session);
  else s.bind(5, std::nullopt);
  s.bind(6, int64_t(round)).bind(7, predicted).bind(8, now_ms()).run();
  return db_->last_insert_id();
}

void TuningCache::update_best(int64_t workload, int64_t target, int64_t candidate, double median_ms, int repeats, int64_t at,
                              bool replace) {
  Statement s(db_->handle(),
              replace ? "INSERT OR REPLACE INTO best_records(workload_id, target_id, candidate_id, median_ms, verified_repeats,"
                        " updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
                      : "INSERT INTO best_records(workload_id, target_id, candidate_id, median_ms, verified_repeats, updated_at)"
                        " VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(workload_id, target_id) DO UPDATE SET"
                        " candidate_id = excluded.candidate_id, median_ms = excluded.median_ms,"
                        " verified_repeats = excluded.verified_repeats, updated_at = excluded.updated_at"
                        " WHERE excluded.median_ms < best_records.median_ms");
  s.bind(1, workload).bind(2, target).bind(3, candidate).bind(4, median_ms).bind(5, int64_t(repeats)).bind(6, at).run();
}

// ---------------------------------------------------------------------------- writing

Expected<int64_t> TuningCache::begin_session(const Workload& w, const TargetIdentity& t, uint64_t seed,
                                             const std::string& settings_json, const std::string& app_version) {
  return guarded([&] {
    sql::Transaction tx(*db_);
    int64_t wid = workload_id(w), tid = target_id(t);
    Statement s(db_->handle(),
                "INSERT INTO sessions(workload_id, target_id, seed, settings, app_version, started_at)"
                " VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    s.bind(1, wid).bind(2, tid).bind(3, int64_t(seed)).bind(4, settings_json).bind(5, app_version).bind(6, now_ms()).run();
    int64_t id = db_->last_insert_id();
    tx.commit();
    return id;
  });
}

Status TuningCache::end_session(int64_t session, std::string_view status) {
  return guarded([&] {
    Statement s(db_->handle(), "UPDATE sessions SET status = ?2, ended_at = ?3 WHERE session_id = ?1");
    s.bind(1, session).bind(2, status).bind(3, now_ms()).run();
    return Unit{};
  });
}

Status TuningCache::record_trials(int64_t session, const Workload& w, const TargetIdentity& t, const std::vector<Trial>& trials) {
  return guarded([&] {
    sql::Transaction tx(*db_);
    int64_t wid = workload_id(w), tid = target_id(t);
    Statement insert(db_->handle(),
                     "INSERT INTO measurements(candidate_id, session_id, status, message, median_ms, repeats, compile_ms,"
                     " threads, measured_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    std::optional<Statement> features;  // prepared when a trial has rows (a version-1 file has no table)
    std::optional<Statement> program;   // likewise, when a trial knows its program
    for (const Trial& trial : trials) {
      // Options that do not parse are stored as given, so the failure stays visible.
      auto canonical = canonical_options(trial.options_json);
      std::string options = canonical ? *canonical : trial.options_json;
      int64_t cid = candidate_id(wid, tid, options, trial.origin, session > 0 ? std::optional(session) : std::nullopt,
                                 trial.round, trial.predicted);
      bool ok = trial.status == TrialStatus::Ok && trial.median_ms;
      int64_t at = trial.measured_at ? trial.measured_at : now_ms();
      insert.reset();
      insert.bind(1, cid);
      if (session > 0) insert.bind(2, session);
      else insert.bind(2, std::nullopt);
      insert.bind(3, trial_status_name(ok ? TrialStatus::Ok : trial.status == TrialStatus::Ok ? TrialStatus::Invalid : trial.status));
      insert.bind(4, ok || trial.status != TrialStatus::Ok ? trial.message : std::string("a trial reported as ok without a time"));
      insert.bind(5, ok ? trial.median_ms : std::nullopt).bind(6, repeats_json(trial.repeats_ms)).bind(7, trial.compile_ms);
      insert.bind(8, int64_t(trial.threads)).bind(9, at).run();
      if (ok) update_best(wid, tid, cid, *trial.median_ms, int(trial.repeats_ms.size()), at, false);
      if (!trial.program.empty() && keeps_programs()) {
        if (!program) program.emplace(db_->handle(), "UPDATE candidates SET program = ?2 WHERE candidate_id = ?1");
        program->reset();
        program->bind(1, cid).bind(2, trial.program).run();
      }
      if (trial.feature_rows > 0 && !trial.features.empty()) {
        if (!features)
          features.emplace(db_->handle(),
                           "INSERT OR REPLACE INTO features(candidate_id, feature_version, rows, columns, data) VALUES (?1, ?2, ?3, ?4, ?5)");
        features->reset();
        features->bind(1, cid).bind(2, int64_t(kFeatureVersion)).bind(3, int64_t(trial.feature_rows));
        features->bind(4, int64_t(trial.features.size() / size_t(trial.feature_rows)));
        features->bind_blob(5, trial.features.data(), trial.features.size() * sizeof(float)).run();
      }
    }
    tx.commit();
    return Unit{};
  });
}

Status TuningCache::set_best(const Workload& w, const TargetIdentity& t, const std::string& options_json, double median_ms,
                             int verified_repeats) {
  auto options = canonical_options(options_json);
  if (!options) return options.failure();
  return guarded([&] {
    sql::Transaction tx(*db_);
    int64_t wid = workload_id(w), tid = target_id(t);
    int64_t cid = candidate_id(wid, tid, *options, "user", std::nullopt, 0, std::nullopt);
    update_best(wid, tid, cid, median_ms, verified_repeats, now_ms(), true);
    tx.commit();
    return Unit{};
  });
}

// ---------------------------------------------------------------------------- reading

Expected<std::optional<BestRecord>> TuningCache::best(const Workload& w, const TargetIdentity& t) {
  return guarded([&]() -> std::optional<BestRecord> {
    Statement s(db_->handle(),
                "SELECT w.workload_key, t.description, c.options, b.median_ms, w.flops, b.verified_repeats, b.updated_at,"
                " c.candidate_id FROM best_records b JOIN workloads w ON w.workload_id = b.workload_id"
                " JOIN targets t ON t.target_id = b.target_id JOIN candidates c ON c.candidate_id = b.candidate_id"
                " WHERE w.canonical = ?1 AND t.fingerprint = ?2");
    s.bind(1, w.canonical).bind(2, t.fingerprint);
    if (!s.step()) return std::nullopt;
    BestRecord r;
    r.workload_key = s.text(0);
    r.target_description = s.text(1);
    r.options_json = s.text(2);
    r.median_ms = s.real(3);
    r.gflops = r.median_ms > 0 ? s.real(4) / (r.median_ms * 1e6) : 0;
    r.verified_repeats = int(s.int64(5));
    r.updated_at = s.int64(6);
    r.candidate_id = s.int64(7);
    return r;
  });
}

Expected<std::set<std::string>> TuningCache::measured_candidates(const Workload& w, const TargetIdentity& t,
                                                                  const std::string& column, bool load_failures) {
  return guarded([&] {
    Statement s(db_->handle(),
                "SELECT DISTINCT c." + column + " FROM candidates c JOIN workloads w ON w.workload_id = c.workload_id"
                " JOIN targets t ON t.target_id = c.target_id WHERE w.canonical = ?1 AND t.fingerprint = ?2"
                " AND c." + column + " IS NOT NULL"
                " AND EXISTS (SELECT 1 FROM measurements m WHERE m.candidate_id = c.candidate_id" +
                std::string(load_failures ? "" : " AND m.status NOT IN (?3, ?4)") + ")");
    s.bind(1, w.canonical).bind(2, t.fingerprint);
    if (!load_failures)
      s.bind(3, trial_status_name(TrialStatus::Timeout)).bind(4, trial_status_name(TrialStatus::OutOfMemory));
    std::set<std::string> out;
    while (s.step()) out.insert(s.text(0));
    return out;
  });
}

Expected<std::set<std::string>> TuningCache::measured_options(const Workload& w, const TargetIdentity& t) {
  return measured_candidates(w, t, "options", true);
}

Expected<std::set<std::string>> TuningCache::measured_programs(const Workload& w, const TargetIdentity& t) {
  if (!keeps_programs()) return std::set<std::string>{};  // an older file read as it is (read-only)
  return measured_candidates(w, t, "program", false);
}

Expected<std::vector<std::pair<std::string, double>>> TuningCache::fastest(const Workload& w, const TargetIdentity& t, int k) {
  return fastest_where(w, t, k, nullptr);
}

Expected<std::optional<double>> TuningCache::fastest_median(const Workload& w, const TargetIdentity& t,
                                                           const std::string& options_json) {
  auto one = fastest_where(w, t, 1, &options_json);
  if (!one) return one.failure();
  if (one->empty()) return std::optional<double>{};
  return std::optional<double>{one->front().second};
}

Expected<std::vector<std::pair<std::string, double>>> TuningCache::fastest_where(const Workload& w, const TargetIdentity& t, int k,
                                                                                const std::string* options_json) {
  return guarded([&] {
    Statement s(db_->handle(),
                std::string("SELECT c.options, min(m.median_ms) AS best FROM candidates c JOIN measurements m ON m.candidate_id = c.candidate_id"
                            " JOIN workloads w ON w.workload_id = c.workload_id JOIN targets t ON t.target_id = c.target_id"
                            " WHERE w.canonical = ?1 AND t.fingerprint = ?2 AND m.status = 'ok'") +
                    (options_json ? " AND c.options = ?4" : "") + " GROUP BY c.candidate_id ORDER BY best, c.candidate_id LIMIT ?3");
    s.bind(1, w.canonical).bind(2, t.fingerprint).bind(3, int64_t(k));
    if (options_json) s.bind(4, *options_json);
    std::vector<std::pair<std::string, double>> out;
    while (s.step()) out.emplace_back(s.text(0), s.real(1));
    return out;
  });
}

Expected<std::vector<TrainingSample>> TuningCache::training_samples(const std::string& structure, const TargetIdentity& t,
                                                                   int feature_version) {
  return guarded([&] {
    Statement s(db_->handle(),
                "SELECT w.workload_key, f.rows, f.data, (SELECT min(m.median_ms) FROM measurements m"
                "  WHERE m.candidate_id = c.candidate_id AND m.status = 'ok')"
                " FROM candidates c JOIN features f ON f.candidate_id = c.candidate_id AND f.feature_version = ?3"
                " AND f.columns = ?4"
                " JOIN workloads w ON w.workload_id = c.workload_id JOIN targets t ON t.target_id = c.target_id"
                " WHERE w.structure = ?1 AND t.fingerprint = ?2"
                " AND EXISTS (SELECT 1 FROM measurements m WHERE m.candidate_id = c.candidate_id)"
                " ORDER BY c.candidate_id");
    s.bind(1, structure).bind(2, t.fingerprint).bind(3, int64_t(feature_version)).bind(4, int64_t(feature_count()));
    std::vector<TrainingSample> out;
    while (s.step()) {
      TrainingSample x;
      x.workload_key = s.text(0);
      x.rows = int(s.int64(1));
      std::string blob = s.blob(2);
      // A row set of another shape (a damaged file) is not learned from.
      if (x.rows <= 0 || blob.size() != size_t(x.rows) * size_t(feature_count()) * sizeof(float)) continue;
      x.features.resize(blob.size() / sizeof(float));
      std::memcpy(x.features.data(), blob.data(), x.features.size() * sizeof(float));
      x.median_ms = s.optional_real(3);
      out.push_back(std::move(x));
    }
    return out;
  });
}

Status TuningCache::save_cost_model(const TargetIdentity& t, int feature_version, const std::string& xgboost_version,
                                    const std::string& params_json, int samples, int rounds, double train_ms,
                                    const std::string& metrics_json, const std::string& model_json) {
  return guarded([&] {
    sql::Transaction tx(*db_);
    int64_t tid = target_id(t);
    Statement s(db_->handle(),
                "INSERT INTO cost_models(target_id, feature_version, xgboost_version, params, samples, rounds, train_ms,"
                " metrics, format, model, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'json', ?9, ?10)");
    s.bind(1, tid).bind(2, int64_t(feature_version)).bind(3, xgboost_version).bind(4, params_json).bind(5, int64_t(samples));
    s.bind(6, int64_t(rounds)).bind(7, train_ms).bind(8, metrics_json).bind_blob(9, model_json.data(), model_json.size());
    s.bind(10, now_ms()).run();
    // Keep the newest few per target: a snapshot is for inspection and warm starts, not history.
    Statement trim(db_->handle(),
                   "DELETE FROM cost_models WHERE target_id = ?1 AND model_id NOT IN"
                   " (SELECT model_id FROM cost_models WHERE target_id = ?1 ORDER BY model_id DESC LIMIT 3)");
    trim.bind(1, tid).run();
    tx.commit();
    return Unit{};
  });
}

namespace {

// The columns of a workload row, in this order, for every query that lists them.
constexpr const char* kWorkloadColumns =
    "w.workload_key, w.canonical, w.structure, w.entry, w.source, w.sizes, w.signature, w.flops";

Workload workload_from(const Statement& s, int first) {
  Workload w;
  w.key = s.text(first);
  w.canonical = s.text(first + 1);
  w.structure = s.text(first + 2);
  w.entry = s.text(first + 3);
  w.source = s.text(first + 4);
  w.sizes = s.text(first + 5);
  w.signature = s.text(first + 6);
  w.flops = s.real(first + 7);
  return w;
}

}  // namespace

Expected<std::vector<WorkloadSummary>> TuningCache::list() {
  return guarded([&] {
    // One row per workload and target with anything measured, newest first.
    std::string q = std::string("SELECT c.workload_id, c.target_id FROM candidates c") +
                    " LEFT JOIN measurements m ON m.candidate_id = c.candidate_id"
                    " GROUP BY c.workload_id, c.target_id ORDER BY max(m.measured_at) DESC, c.workload_id";
    Statement s(db_->handle(), q);
    std::vector<WorkloadSummary> out;
    while (s.step()) out.push_back(detail(s.int64(0), s.int64(1), 0).summary);
    return out;
  });
}

WorkloadDetail TuningCache::detail(int64_t workload, int64_t target, int top_k) {
  WorkloadDetail d;
  WorkloadSummary& sum = d.summary;
  {
    Statement s(db_->handle(), std::string("SELECT ") + kWorkloadColumns +
                                   ", t.description, t.fingerprint FROM workloads w, targets t"
                                   " WHERE w.workload_id = ?1 AND t.target_id = ?2");
    s.bind(1, workload).bind(2, target);
    if (s.step()) {
      sum.workload = workload_from(s, 0);
      sum.target_description = s.text(8);
      sum.target_fingerprint = s.text(9);
    }
  }
  {
    Statement s(db_->handle(),
                "SELECT count(DISTINCT c.candidate_id), count(m.measurement_id), coalesce(sum(m.status != 'ok'), 0),"
                " coalesce(max(m.measured_at), 0) FROM candidates c LEFT JOIN measurements m ON m.candidate_id = c.candidate_id"
                " WHERE c.workload_id = ?1 AND c.target_id = ?2");
    s.bind(1, workload).bind(2, target);
    if (s.step()) {
      sum.candidates = s.int64(0);
      sum.trials = s.int64(1);
      sum.failures = s.int64(2);
      sum.last_measured_at = s.int64(3);
    }
  }
  {
    Statement s(db_->handle(), "SELECT median_ms FROM best_records WHERE workload_id = ?1 AND target_id = ?2");
    s.bind(1, workload).bind(2, target);
    if (s.step()) {
      sum.best_ms = s.real(0);
      sum.best_gflops = *sum.best_ms > 0 ? sum.workload.flops / (*sum.best_ms * 1e6) : 0;
    }
  }
  if (top_k > 0) {
    Statement s(db_->handle(),
                "SELECT c.candidate_id, c.options, c.origin, count(m.measurement_id),"
                " min(CASE WHEN m.status = 'ok' THEN m.median_ms END) AS best,"
                " (SELECT status || char(10) || message FROM measurements l WHERE l.candidate_id = c.candidate_id"
                "  ORDER BY l.measured_at DESC, l.measurement_id DESC LIMIT 1)"
                " FROM candidates c LEFT JOIN measurements m ON m.candidate_id = c.candidate_id"
                " WHERE c.workload_id = ?1 AND c.target_id = ?2 GROUP BY c.candidate_id"
                " ORDER BY best IS NULL, best, c.candidate_id LIMIT ?3");
    s.bind(1, workload).bind(2, target).bind(3, int64_t(top_k));
    while (s.step()) {
      CandidateSummary c;
      c.id = s.int64(0);
      c.options_json = s.text(1);
      c.origin = s.text(2);
      c.measurements = s.int64(3);
      c.median_ms = s.optional_real(4);
      std::string last = s.text(5);
      size_t nl = last.find('\n');
      c.last_status = last.substr(0, nl);
      if (nl != std::string::npos) c.last_message = last.substr(nl + 1);
      d.top.push_back(std::move(c));
    }
    Statement ss(db_->handle(),
                 "SELECT s.session_id, s.seed, s.settings, s.status, s.app_version, s.started_at, coalesce(s.ended_at, 0),"
                 " (SELECT count(*) FROM measurements m WHERE m.session_id = s.session_id)"
                 " FROM sessions s WHERE s.workload_id = ?1 AND s.target_id = ?2 ORDER BY s.started_at, s.session_id");
    ss.bind(1, workload).bind(2, target);
    while (ss.step()) {
      SessionSummary x;
      x.id = ss.int64(0);
      x.seed = uint64_t(ss.int64(1));
      x.settings_json = ss.text(2);
      x.status = ss.text(3);
      x.app_version = ss.text(4);
      x.started_at = ss.int64(5);
      x.ended_at = ss.int64(6);
      x.trials = ss.int64(7);
      d.sessions.push_back(std::move(x));
    }
  }
  return d;
}

Expected<std::vector<WorkloadDetail>> TuningCache::show(const std::string& key, int top_k) {
  auto found = guarded([&] {
    Statement s(db_->handle(), "SELECT DISTINCT workload_key FROM workloads WHERE substr(workload_key, 1, length(?1)) = ?1");
    s.bind(1, key);
    std::vector<std::string> keys;
    while (s.step()) keys.push_back(s.text(0));
    return keys;
  });
  if (!found) return found.failure();
  if (found->empty() || key.empty())
    return Error{ErrorKind::Cache, "tuning cache " + path_ + " has no workload whose key starts with '" + key + "' (see 'cache list')"};
  if (found->size() > 1) {
    std::string keys;
    for (const std::string& k : *found) keys += " " + k;
    return Error{ErrorKind::Cache, "'" + key + "' is the start of several workload keys:" + keys + "; give more of one"};
  }
  return guarded([&] {
    Statement s(db_->handle(),
                "SELECT DISTINCT c.workload_id, c.target_id FROM candidates c JOIN workloads w ON w.workload_id = c.workload_id"
                " WHERE w.workload_key = ?1 ORDER BY c.target_id");
    s.bind(1, found->front());
    std::vector<WorkloadDetail> out;
    while (s.step()) out.push_back(detail(s.int64(0), s.int64(1), top_k));
    return out;
  });
}

// ---------------------------------------------------------------------------- sharing

Expected<int64_t> TuningCache::export_lines(std::ostream& out) {
  return guarded([&] {
    Statement c(db_->handle(), std::string("SELECT c.candidate_id, c.options, c.origin, c.round, c.predicted, ") +
                                   kWorkloadColumns +
                                   ", t.kind, t.description, t.fingerprint, b.median_ms, b.verified_repeats, b.updated_at, " +
                                   (keeps_programs() ? "c.program" : "NULL") +
                                   " FROM candidates c JOIN workloads w ON w.workload_id = c.workload_id"
                                   " JOIN targets t ON t.target_id = c.target_id LEFT JOIN best_records b"
                                   " ON b.candidate_id = c.candidate_id ORDER BY c.candidate_id");
    Statement m(db_->handle(),
                "SELECT status, message, median_ms, repeats, compile_ms, threads, measured_at FROM measurements"
                " WHERE candidate_id = ?1 ORDER BY measurement_id");
    int64_t lines = 0;
    while (c.step()) {
      Workload w = workload_from(c, 5);
      json line = {{"tcstudio_cache", kCacheSchemaVersion},
                   {"workload",
                    {{"key", w.key}, {"canonical", w.canonical}, {"structure", w.structure}, {"entry", w.entry},
                     {"source", w.source}, {"sizes", w.sizes}, {"signature", w.signature}, {"flops", w.flops}}},
                   {"target", {{"kind", c.text(13)}, {"description", c.text(14)}, {"fingerprint", c.text(15)}}},
                   {"options", json::parse(c.text(1), nullptr, false)},
                   {"origin", c.text(2)},
                   {"round", c.int64(3)}};
      if (line["options"].is_discarded()) line["options"] = c.text(1);
      if (!c.is_null(4)) line["predicted"] = c.real(4);
      if (!c.is_null(16)) line["best"] = {{"median_ms", c.real(16)}, {"verified_repeats", c.int64(17)}, {"updated_at", c.int64(18)}};
      if (!c.is_null(19)) line["program"] = c.text(19);
      json ms = json::array();
      m.reset();
      m.bind(1, c.int64(0));
      while (m.step()) {
        json x = {{"status", m.text(0)}, {"message", m.text(1)}, {"repeats_ms", json::parse(m.text(3), nullptr, false)},
                  {"threads", m.int64(5)}, {"measured_at", m.int64(6)}};
        if (!m.is_null(2)) x["median_ms"] = m.real(2);
        if (!m.is_null(4)) x["compile_ms"] = m.real(4);
        ms.push_back(std::move(x));
      }
      line["measurements"] = std::move(ms);
      out << line.dump() << "\n";
      ++lines;
    }
    out.flush();
    if (!out) throw sql::SqlError(SQLITE_IOERR, "the export could not be written (disk full?)");
    return lines;
  });
}

Expected<ImportReport> TuningCache::import_lines(std::istream& in) {
  return guarded([&] {
    ImportReport report;
    sql::Transaction tx(*db_);
    Statement exists(db_->handle(),
                     "SELECT 1 FROM measurements WHERE candidate_id = ?1 AND measured_at = ?2 AND status = ?3"
                     " AND median_ms IS ?4");
    Statement insert(db_->handle(),
                     "INSERT INTO measurements(candidate_id, status, message, median_ms, repeats, compile_ms, threads,"
                     " measured_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    std::optional<Statement> program;
    if (keeps_programs())
      program.emplace(db_->handle(), "UPDATE candidates SET program = coalesce(program, ?2) WHERE candidate_id = ?1");
    std::string text;
    for (int64_t number = 1; std::getline(in, text); ++number) {
      if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
      ++report.lines;
      auto skip = [&](const std::string& why) { report.skipped.push_back("line " + std::to_string(number) + ": " + why); };
      json line = json::parse(text, nullptr, false);
      if (line.is_discarded() || !line.is_object()) {
        skip("not a JSON object");
        continue;
      }
      if (!line.contains("tcstudio_cache") || !line["tcstudio_cache"].is_number_integer()) {
        skip("not a line of 'cache export' (no \"tcstudio_cache\" version)");
        continue;
      }
      // Each line stores whole or not at all.
      db_->exec("SAVEPOINT line");
      bool stored = false;
      try {
        const json& jw = line.at("workload");
        const json& jt = line.at("target");
        Workload w;
        w.canonical = jw.at("canonical").get<std::string>();
        w.structure = jw.at("structure").get<std::string>();
        w.entry = jw.at("entry").get<std::string>();
        w.source = jw.at("source").get<std::string>();
        w.sizes = jw.at("sizes").get<std::string>();
        w.signature = jw.at("signature").get<std::string>();
        w.flops = jw.at("flops").get<double>();
        TargetIdentity t{jt.at("kind").get<std::string>(), jt.at("description").get<std::string>(),
                         jt.at("fingerprint").get<std::string>()};
        const json& jo = line.at("options");
        auto options = canonical_options(jo.is_string() ? jo.get<std::string>() : jo.dump());
        if (!options) {
          skip("options: " + options.error());
          continue;
        }
        int64_t wid = workload_id(w), tid = target_id(t);
        int64_t before = db_->total_changes();
        int64_t cid = candidate_id(wid, tid, *options, line.value("origin", std::string("imported")), std::nullopt,
                                   int(line.value("round", 0)),
                                   line.contains("predicted") ? std::optional(line["predicted"].get<double>()) : std::nullopt);
        report.candidates_added += db_->total_changes() - before;
        if (program && line.contains("program") && line["program"].is_string()) {
          program->reset();
          program->bind(1, cid).bind(2, line["program"].get<std::string>()).run();
        }
        for (const json& m : line.value("measurements", json::array())) {
          std::string status = m.at("status").get<std::string>();
          if (!trial_status_from_name(status)) {
            skip("unknown measurement status '" + status + "'");
            continue;
          }
          std::optional<double> median = m.contains("median_ms") ? std::optional(m["median_ms"].get<double>()) : std::nullopt;
          if ((status == "ok") != median.has_value()) {
            skip("a measurement with status '" + status + "' " + (median ? "has" : "lacks") + " a time");
            continue;
          }
          int64_t at = m.at("measured_at").get<int64_t>();
          exists.reset();
          exists.bind(1, cid).bind(2, at).bind(3, status).bind(4, median);
          if (exists.step()) {
            ++report.duplicates;
            continue;
          }
          insert.reset();
          insert.bind(1, cid).bind(2, status).bind(3, m.value("message", std::string())).bind(4, median);
          insert.bind(5, m.value("repeats_ms", json::array()).dump());
          insert.bind(6, m.contains("compile_ms") ? std::optional(m["compile_ms"].get<double>()) : std::nullopt);
          insert.bind(7, m.value("threads", int64_t(1))).bind(8, at).run();
          ++report.measurements_added;
        }
        if (line.contains("best")) {
          const json& b = line["best"];
          update_best(wid, tid, cid, b.at("median_ms").get<double>(), int(b.value("verified_repeats", 0)),
                      b.value("updated_at", now_ms()), false);
        }
        stored = true;
      } catch (const json::exception& e) {
        skip(std::string("a field is missing or of the wrong type (") + e.what() + ")");
      } catch (const sql::SqlError& e) {
        if (e.code != SQLITE_CONSTRAINT) throw;
        skip(std::string("refused by the schema (") + e.what() + ")");
      }
      db_->exec(stored ? "RELEASE line" : "ROLLBACK TO line; RELEASE line");
    }
    tx.commit();
    return report;
  });
}

Status TuningCache::vacuum() {
  return guarded([&] {
    db_->exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db_->exec("VACUUM");
    return Unit{};
  });
}

}  // namespace tcs::tuner
