#include "tuner/CacheSchema.h"

#include <string>

#include "tuner/Sqlite.h"

namespace tcs::tuner {

namespace {

// Each entry takes the schema from version i to i + 1. Never edit a released entry: add
// one, so every file older than this build upgrades in place.
const char* const kMigrations[] = {
    // 1: workloads, targets, tuning sessions, candidates with their measurements, best records.
    R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE targets(
  target_id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  fingerprint TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL,
  created_at INTEGER NOT NULL);
CREATE TABLE workloads(
  workload_id INTEGER PRIMARY KEY,
  workload_key TEXT NOT NULL,
  canonical TEXT NOT NULL UNIQUE,
  structure TEXT NOT NULL,
  entry TEXT NOT NULL,
  source TEXT NOT NULL,
  sizes TEXT NOT NULL,
  signature TEXT NOT NULL,
  flops REAL NOT NULL,
  created_at INTEGER NOT NULL);
CREATE INDEX workloads_by_key ON workloads(workload_key);
CREATE TABLE sessions(
  session_id INTEGER PRIMARY KEY,
  workload_id INTEGER NOT NULL REFERENCES workloads,
  target_id INTEGER NOT NULL REFERENCES targets,
  seed INTEGER NOT NULL,
  settings TEXT NOT NULL,
  app_version TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  status TEXT NOT NULL DEFAULT 'running');
CREATE TABLE candidates(
  candidate_id INTEGER PRIMARY KEY,
  workload_id INTEGER NOT NULL REFERENCES workloads,
  target_id INTEGER NOT NULL REFERENCES targets,
  options TEXT NOT NULL,
  origin TEXT NOT NULL,
  session_id INTEGER REFERENCES sessions,
  round INTEGER NOT NULL DEFAULT 0,
  predicted REAL,
  created_at INTEGER NOT NULL,
  UNIQUE(workload_id, target_id, options));
CREATE TABLE measurements(
  measurement_id INTEGER PRIMARY KEY,
  candidate_id INTEGER NOT NULL REFERENCES candidates ON DELETE CASCADE,
  session_id INTEGER REFERENCES sessions,
  status TEXT NOT NULL CHECK(status IN ('ok', 'invalid', 'compile-error', 'runtime-fault', 'wrong-result',
                                        'crash', 'timeout', 'out-of-memory')),
  message TEXT NOT NULL DEFAULT '',
  median_ms REAL,
  repeats TEXT NOT NULL DEFAULT '[]',
  compile_ms REAL,
  threads INTEGER NOT NULL,
  measured_at INTEGER NOT NULL,
  CHECK((status = 'ok') = (median_ms IS NOT NULL)));
CREATE INDEX measurements_by_candidate ON measurements(candidate_id);
CREATE TABLE best_records(
  workload_id INTEGER NOT NULL REFERENCES workloads,
  target_id INTEGER NOT NULL REFERENCES targets,
  candidate_id INTEGER NOT NULL REFERENCES candidates ON DELETE CASCADE,
  median_ms REAL NOT NULL,
  verified_repeats INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY(workload_id, target_id));
)sql",
    // 2: what the cost model learns from and what it learned: per-candidate feature rows
    // and trained models, each tagged with the feature layout's version.
    R"sql(
CREATE TABLE features(
  candidate_id INTEGER NOT NULL REFERENCES candidates ON DELETE CASCADE,
  feature_version INTEGER NOT NULL,
  rows INTEGER NOT NULL,
  columns INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY(candidate_id, feature_version));
CREATE TABLE cost_models(
  model_id INTEGER PRIMARY KEY,
  target_id INTEGER NOT NULL REFERENCES targets,
  feature_version INTEGER NOT NULL,
  xgboost_version TEXT NOT NULL,
  params TEXT NOT NULL,
  samples INTEGER NOT NULL,
  rounds INTEGER NOT NULL,
  train_ms REAL NOT NULL,
  metrics TEXT NOT NULL,
  format TEXT NOT NULL,
  model BLOB NOT NULL,
  created_at INTEGER NOT NULL);
ALTER TABLE candidates ADD COLUMN model_id INTEGER REFERENCES cost_models;
)sql",
    // 3: which program a candidate's options made (the stable hash of its loop nest's
    // text): many options make one program, and a resumed session measures none twice.
    R"sql(
ALTER TABLE candidates ADD COLUMN program TEXT;
CREATE INDEX candidates_by_program ON candidates(workload_id, target_id, program);
)sql",
};

static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == kCacheSchemaVersion);

}  // namespace

void cache_migrate(sql::Database& db, int from, int to) {
  for (int v = from; v < to; ++v) db.exec(kMigrations[v]);
  db.exec("PRAGMA application_id = " + std::to_string(kCacheApplicationId));
  db.exec("PRAGMA user_version = " + std::to_string(to));
}

}  // namespace tcs::tuner
