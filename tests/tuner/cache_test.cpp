// The tuning cache on real SQLite files and real processes: schema and migration, the
// files it must refuse without touching them, writers in two processes, kill -9 in the
// middle of a session, best records, sharing as JSON lines, and the workload key.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "kernel/KernelSetup.h"
#include "targets/Target.h"
#include "tuner/BestOptions.h"
#include "tuner/Cache.h"

namespace fs = std::filesystem;
using namespace tcs;
using namespace tcs::tuner;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/tcs_cache_test_XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

KernelSetup setup_of(const std::string& text, SizeMap sizes = {}) {
  std::shared_ptr<const CheckedFile> file = check_source("k.tc", text);
  EXPECT_FALSE(file->has_errors()) << text;
  KernelSpec spec;
  spec.sizes = std::move(sizes);
  auto k = kernel_setup(file, spec);
  EXPECT_TRUE(k) << (k ? "" : k.error());
  return *k;
}

const char* kMatmul = R"(# sizes: M=32 K=16 N=24
def matmul(float(M,K) A, float(K,N) B) -> (C) {
    C(m, n) +=! A(m, k) * B(k, n)
}
)";

Workload matmul_workload() { return workload_of(setup_of(kMatmul)); }
// This machine running kernels on two threads, as the records below were measured.
TargetIdentity here() { return tuning_target(find_target("cpu")->identify(), 2); }

// Valid options that differ by their first tile size.
std::string options_with_tile(int t0) {
  return "{\"tile\": [" + std::to_string(t0) + ", 8]}";
}

Trial ok_trial(int t0, double ms) {
  Trial t;
  t.options_json = options_with_tile(t0);
  t.origin = "random";
  t.median_ms = ms;
  t.repeats_ms = {ms, ms * 1.01, ms * 0.99};
  t.compile_ms = 50;
  t.program = "program" + std::to_string(t0);
  return t;
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int64_t count_rows(const std::string& path, const char* table) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  std::string q = std::string("SELECT count(*) FROM ") + table;
  sqlite3_prepare_v2(db, q.c_str(), -1, &st, nullptr);
  int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

void raw_exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

// A cache with one session and a few trials, closed again.
void fill(const std::string& path, int trials = 6, int schema = TuningCache::kSchemaVersion) {
  auto cache = TuningCache::open(path, {.schema_version = schema});
  ASSERT_TRUE(cache) << cache.error();
  Workload w = matmul_workload();
  auto session = (*cache)->begin_session(w, here(), 7, "{\"trials\": 6}", "test");
  ASSERT_TRUE(session) << session.error();
  std::vector<Trial> batch;
  for (int i = 0; i < trials; ++i) batch.push_back(ok_trial(i + 1, 1.0 + i));
  ASSERT_TRUE((*cache)->record_trials(*session, w, here(), batch));
  ASSERT_TRUE((*cache)->end_session(*session, "finished"));
}

}  // namespace

TEST(WorkloadKey, SameUnderRenamingWhitespaceAndComments) {
  Workload a = matmul_workload();
  Workload b = workload_of(setup_of(R"(# another file, another name
# sizes: P=32 Q=16 R=24
def   gemm(float(P,Q) X,float(Q,R) Y)->(Z){
  # a comment
  Z(i,j)+=!X(i,l)*Y(l,j)
}
)"));
  EXPECT_EQ(a.key, b.key);
  EXPECT_EQ(a.canonical, b.canonical);
  EXPECT_EQ(a.entry, "matmul");
  EXPECT_EQ(b.entry, "gemm");
  EXPECT_EQ(a.sizes, "M=32 K=16 N=24");
  EXPECT_EQ(a.signature, "A float32[32, 16], B float32[16, 24] -> C float32[32, 24]");
  EXPECT_DOUBLE_EQ(a.flops, 2.0 * 32 * 16 * 24);
}

TEST(WorkloadKey, DifferentUnderSizesTypesOperatorsAndBuiltins) {
  Workload base = matmul_workload();
  Workload bigger = workload_of(setup_of(kMatmul, {{"M", 64}}));
  EXPECT_NE(base.key, bigger.key);
  EXPECT_EQ(base.structure, bigger.structure);  // the same kernel at another size
  std::string as_double = kMatmul;
  as_double.replace(as_double.find("float(M,K)"), 5, "double");
  EXPECT_NE(base.key, workload_of(setup_of(as_double)).key);
  std::string as_max = kMatmul;
  as_max.replace(as_max.find("+=!"), 3, "max=!");
  EXPECT_NE(base.key, workload_of(setup_of(as_max)).key);
  // Swapping which sizes are which is not a renaming.
  Workload swapped = workload_of(setup_of(kMatmul, {{"M", 24}, {"N", 32}}));
  EXPECT_NE(base.key, swapped.key);
  const char* e = "# sizes: N=8\ndef f(float(N) A) -> (B) { B(i) = exp(A(i)) }\n";
  const char* l = "# sizes: N=8\ndef f(float(N) A) -> (B) { B(i) = log(A(i)) }\n";
  EXPECT_NE(workload_of(setup_of(e)).key, workload_of(setup_of(l)).key);
}

TEST(Cache, CreatesTheSchemaInWalMode) {
  TempDir dir;
  std::string path = dir.file("sub/folder/cache.sqlite");  // folders are created
  fill(path);
  auto cache = TuningCache::open(path, {.write = false});
  ASSERT_TRUE(cache) << cache.error();
  EXPECT_EQ((*cache)->schema_version(), TuningCache::kSchemaVersion);
  EXPECT_EQ(count_rows(path, "measurements"), 6);
  EXPECT_EQ(count_rows(path, "features"), 0);
  EXPECT_EQ(count_rows(path, "cost_models"), 0);
  std::string header = bytes_of(path).substr(0, 100);
  EXPECT_EQ(header[18], 2) << "WAL mode writes file format version 2";
}

TEST(Cache, MigratesAnOlderFileAndKeepsItsRecords) {
  for (int old : {1, 2}) {
    TempDir dir;
    std::string path = dir.file("old.sqlite");
    fill(path, 4, old);
    EXPECT_EQ(count_rows(path, "features"), old < 2 ? -1 : 0) << "version 1 has no features table";
    EXPECT_EQ(count_rows(path, "candidates WHERE program IS NULL"), -1) << "before version 3 candidates have no program";
    {
      // Readers read a version-2 file as it is (they use nothing added since); version 1
      // must be upgraded first.
      auto reader = TuningCache::open(path, {.write = false});
      if (old < 2) {
        ASSERT_FALSE(reader);
        EXPECT_NE(reader.error().find("has the older cache schema 1"), std::string::npos) << reader.error();
      } else {
        ASSERT_TRUE(reader) << reader.error();
        EXPECT_EQ((*reader)->schema_version(), 2);
        auto best = (*reader)->best(matmul_workload(), here());
        ASSERT_TRUE(best && *best);
        std::stringstream lines;
        auto n = (*reader)->export_lines(lines);
        ASSERT_TRUE(n) << n.error();
        EXPECT_EQ(*n, 4);
        EXPECT_EQ(lines.str().find("\"program\""), std::string::npos);
        EXPECT_TRUE((*reader)->measured_programs(matmul_workload(), here())->empty());
      }
    }
    // A build that reads only that version still reads it; the current one upgrades it.
    auto cache = TuningCache::open(path);
    ASSERT_TRUE(cache) << cache.error();
    EXPECT_EQ((*cache)->schema_version(), 3);
    EXPECT_EQ(count_rows(path, "measurements"), 4);
    EXPECT_EQ(count_rows(path, "features"), 0);
    EXPECT_EQ(count_rows(path, "candidates WHERE program IS NULL"), 4);
    auto best = (*cache)->best(matmul_workload(), here());
    ASSERT_TRUE(best && *best);
    EXPECT_DOUBLE_EQ((*best)->median_ms, 1.0);
  }
}

TEST(Cache, RefusesANewerSchemaWithoutTouchingIt) {
  TempDir dir;
  std::string path = dir.file("newer.sqlite");
  fill(path);
  raw_exec(path, "PRAGMA user_version = 9");
  std::string before = bytes_of(path);
  for (bool write : {true, false}) {
    auto cache = TuningCache::open(path, {.write = write});
    ASSERT_FALSE(cache);
    EXPECT_EQ(cache.error_kind(), ErrorKind::Cache);
    EXPECT_NE(cache.error().find("newer TC Studio (cache schema 9; this build reads up to 3)"), std::string::npos)
        << cache.error();
    EXPECT_NE(cache.error().find(path), std::string::npos);
  }
  EXPECT_EQ(bytes_of(path), before);
}

TEST(Cache, RefusesForeignFiles) {
  TempDir dir;
  std::string text = dir.file("notes.txt");
  std::ofstream(text) << "shopping list\n";
  std::string other = dir.file("other.sqlite");
  raw_exec(other, "CREATE TABLE songs(title TEXT); INSERT INTO songs VALUES ('a')");
  for (const std::string& path : {text, other}) {
    std::string before = bytes_of(path);
    auto cache = TuningCache::open(path);
    ASSERT_FALSE(cache) << path;
    EXPECT_NE(cache.error().find("not a TC Studio tuning cache"), std::string::npos) << cache.error();
    EXPECT_NE(cache.error().find("left as it is"), std::string::npos) << cache.error();
    EXPECT_EQ(bytes_of(path), before);
  }
  auto dir_as_file = TuningCache::open(dir.path.string());
  ASSERT_FALSE(dir_as_file);
  EXPECT_NE(dir_as_file.error().find("is a directory"), std::string::npos);
}

TEST(Cache, RefusesCorruptAndTruncatedFiles) {
  TempDir dir;
  std::string good = dir.file("good.sqlite");
  fill(good, 200);
  { auto c = TuningCache::open(good); ASSERT_TRUE(c); ASSERT_TRUE((*c)->vacuum()); }  // everything in the main file
  std::string bytes = bytes_of(good);
  ASSERT_GT(bytes.size(), 8192u);
  std::string truncated = dir.file("truncated.sqlite");
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  std::string scribbled = dir.file("scribbled.sqlite");
  std::string damaged = bytes;
  for (size_t i = 4096 + 100; i < 4096 * 2; ++i) damaged[i] = char(i * 37);
  std::ofstream(scribbled, std::ios::binary) << damaged;
  for (const std::string& path : {truncated, scribbled}) {
    std::string before = bytes_of(path);
    for (bool write : {true, false}) {
      auto cache = TuningCache::open(path, {.write = write});
      ASSERT_FALSE(cache) << path;
      EXPECT_EQ(cache.error_kind(), ErrorKind::Cache);
      EXPECT_NE(cache.error().find("corrupt"), std::string::npos) << cache.error();
    }
    EXPECT_EQ(bytes_of(path), before);
  }
}

TEST(Cache, ReadOnlyFileIsReadButNeverWritten) {
  TempDir dir;
  std::string path = dir.file("ro.sqlite");
  fill(path);
  { auto c = TuningCache::open(path); ASSERT_TRUE(c); ASSERT_TRUE((*c)->vacuum()); }
  ::chmod(path.c_str(), 0444);
  ::chmod(dir.path.c_str(), 0555);
  // Root may write any file, so the refusal is tried as an unprivileged user.
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(pipefd[0]);
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
    std::string report;
    auto writer = TuningCache::open(path);
    report += writer ? "opened for writing\n" : writer.error() + "\n";
    auto reader = TuningCache::open(path, {.write = false});
    if (!reader) report += "reader: " + reader.error() + "\n";
    else {
      auto best = (*reader)->best(matmul_workload(), here());
      report += best && *best ? "best found\n" : "no best\n";
    }
    (void)!write(pipefd[1], report.data(), report.size());
    _exit(0);
  }
  close(pipefd[1]);
  std::string report;
  char buf[4096];
  for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) > 0;) report.append(buf, size_t(n));
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ::chmod(dir.path.c_str(), 0755);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "could not drop privileges";
  EXPECT_NE(report.find("is read-only"), std::string::npos) << report;
  EXPECT_NE(report.find("best found"), std::string::npos) << report;
}

TEST(Cache, LockedFileIsReportedAndNothingIsLost) {
  TempDir dir;
  std::string path = dir.file("locked.sqlite");
  fill(path, 2);
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  auto cache = TuningCache::open(path, {.busy_timeout_ms = 200});
  ASSERT_TRUE(cache) << cache.error();
  Workload w = matmul_workload();
  Status s = (*cache)->record_trials(0, w, here(), {ok_trial(30, 0.5)});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find("locked by another process"), std::string::npos) << s.error();
  sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  ASSERT_TRUE((*cache)->record_trials(0, w, here(), {ok_trial(30, 0.5)}));
  EXPECT_EQ(count_rows(path, "measurements"), 3);
}

TEST(Cache, TwoProcessesWritingAtOnceLoseNothing) {
  TempDir dir;
  std::string path = dir.file("shared.sqlite");
  fill(path, 1);
  constexpr int kBatches = 25, kPerBatch = 8;
  std::vector<pid_t> children;
  for (int p = 0; p < 2; ++p) {
    pid_t pid = fork();
    if (pid == 0) {
      auto cache = TuningCache::open(path);
      if (!cache) _exit(2);
      Workload w = matmul_workload();
      for (int b = 0; b < kBatches; ++b) {
        std::vector<Trial> batch;
        for (int i = 0; i < kPerBatch; ++i) batch.push_back(ok_trial(1000 + p * 10000 + b * kPerBatch + i, 2.0));
        if (!(*cache)->record_trials(0, w, here(), batch)) _exit(3);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(count_rows(path, "measurements"), 1 + 2 * kBatches * kPerBatch);
  EXPECT_EQ(count_rows(path, "candidates"), 1 + 2 * kBatches * kPerBatch);
}

TEST(Cache, KillNineLosesAtMostTheBatchInFlight) {
  TempDir dir;
  std::string path = dir.file("killed.sqlite");
  fill(path, 1);
  constexpr int kPerBatch = 8;
  pid_t pid = fork();
  if (pid == 0) {
    auto cache = TuningCache::open(path);
    if (!cache) _exit(2);
    Workload w = matmul_workload();
    for (int b = 0;; ++b) {
      std::vector<Trial> batch;
      for (int i = 0; i < kPerBatch; ++i) batch.push_back(ok_trial(100 + b * kPerBatch + i, 3.0));
      (*cache)->record_trials(0, w, here(), batch);
    }
  }
  for (int waited = 0; count_rows(path, "measurements") < 1 + 10 * kPerBatch && waited < 2000; ++waited)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  auto cache = TuningCache::open(path);
  ASSERT_TRUE(cache) << cache.error();
  int64_t rows = count_rows(path, "measurements");
  EXPECT_GE(rows, 1 + 10 * kPerBatch);
  EXPECT_EQ((rows - 1) % kPerBatch, 0) << "a batch is stored whole or not at all";
  auto measured = (*cache)->measured_options(matmul_workload(), here());
  ASSERT_TRUE(measured);
  EXPECT_EQ(int64_t(measured->size()), rows);
}

TEST(Cache, BestIsPerWorkloadAndMachineAndSaysWhenThereIsNone) {
  TempDir dir;
  std::string path = dir.file("best.sqlite");
  Workload w = matmul_workload();
  {
    auto cache = TuningCache::open(path);
    ASSERT_TRUE(cache);
    Trial failed;
    failed.options_json = options_with_tile(3);
    failed.status = TrialStatus::Crash;
    failed.message = "killed by signal 11 (SIGSEGV)";
    ASSERT_TRUE((*cache)->record_trials(0, w, here(), {ok_trial(1, 0.9), ok_trial(2, 0.4), failed}));
    auto best = (*cache)->best(w, here());
    ASSERT_TRUE(best && *best);
    EXPECT_DOUBLE_EQ((*best)->median_ms, 0.4);
    EXPECT_NE((*best)->options_json.find("\"tile\": [2, 8]"), std::string::npos) << (*best)->options_json;
    // A slower trial does not replace it; a verified re-measurement does.
    ASSERT_TRUE((*cache)->record_trials(0, w, here(), {ok_trial(4, 0.6)}));
    EXPECT_DOUBLE_EQ((*(*cache)->best(w, here()))->median_ms, 0.4);
    ASSERT_TRUE((*cache)->set_best(w, here(), options_with_tile(1), 0.45, 10));
    EXPECT_EQ((*(*cache)->best(w, here()))->verified_repeats, 10);
    TargetIdentity elsewhere = here();
    elsewhere.fingerprint += ";another machine";
    EXPECT_FALSE(*(*cache)->best(w, elsewhere));
    auto details = (*cache)->show(w.key.substr(0, 6), 10);
    ASSERT_TRUE(details) << details.error();
    ASSERT_EQ(details->size(), 1u);
    EXPECT_EQ((*details)[0].summary.failures, 1);
    EXPECT_EQ((*details)[0].top.back().last_status, "crash");
    EXPECT_EQ((*details)[0].top.back().last_message, "killed by signal 11 (SIGSEGV)");
  }
  auto found = best_options(path, setup_of(kMatmul), 2);
  ASSERT_TRUE(found) << found.error();
  ASSERT_TRUE(found->record);
  EXPECT_EQ(found->options.tile, (std::vector<int64_t>{1, 8}));
  EXPECT_NE(found->note.find("using tuned options for 'matmul' (M=32 K=16 N=24)"), std::string::npos) << found->note;
  EXPECT_EQ(found->note.find("tuned for"), std::string::npos) << found->note;
  // A run on one thread finds the two-thread record only as a fallback, and says so.
  auto one_thread = best_options(path, setup_of(kMatmul), 1);
  ASSERT_TRUE(one_thread && one_thread->record);
  EXPECT_NE(one_thread->note.find("(tuned for 2 threads, not the 1 thread of this run)"), std::string::npos) << one_thread->note;
  // Timed with cold caches is a record of its own: a cold run falls back to the warm
  // one and says so, until one tuned cold exists; warm runs keep theirs.
  auto cold_fallback = best_options(path, setup_of(kMatmul), 2, /*cold=*/true);
  ASSERT_TRUE(cold_fallback && cold_fallback->record);
  EXPECT_NE(cold_fallback->note.find("(timed with warm caches, not cold)"), std::string::npos) << cold_fallback->note;
  {
    auto cache = TuningCache::open(path);
    ASSERT_TRUE(cache);
    TargetIdentity cold = tuning_target(find_target("cpu")->identify(), 2, true);
    EXPECT_NE(cold.fingerprint, here().fingerprint);
    ASSERT_TRUE((*cache)->record_trials(0, w, cold, {ok_trial(5, 0.7)}));
  }
  auto cold_record = best_options(path, setup_of(kMatmul), 2, true);
  ASSERT_TRUE(cold_record && cold_record->record);
  EXPECT_EQ(cold_record->options.tile, (std::vector<int64_t>{5, 8}));
  EXPECT_NE(cold_record->note.find("on 2 threads with cold caches"), std::string::npos) << cold_record->note;
  EXPECT_EQ(cold_record->note.find("not cold"), std::string::npos) << cold_record->note;
  auto still_warm = best_options(path, setup_of(kMatmul), 2);
  ASSERT_TRUE(still_warm && still_warm->record);
  EXPECT_EQ(still_warm->options.tile, (std::vector<int64_t>{1, 8}));
  auto other_size = best_options(path, setup_of(kMatmul, {{"M", 64}}), 2);
  ASSERT_TRUE(other_size);
  EXPECT_FALSE(other_size->record);
  EXPECT_NE(other_size->note.find("no tuned entry for 'matmul' (M=64 K=16 N=24) on this machine"), std::string::npos);
  auto missing = best_options(dir.file("none.sqlite"), setup_of(kMatmul), 2);
  ASSERT_TRUE(missing);
  EXPECT_NE(missing->note.find("using the default preset"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir.file("none.sqlite"))) << "a lookup never creates a cache";
}

// Options once measured are never measured again, whatever the outcome (a resumed session
// repeats nothing). A program is barred for other options too, unless it only timed out or
// ran out of memory: those depend on the load of the moment.
TEST(Cache, AProgramThatOnlyTimedOutMayBeTriedAgain) {
  TempDir dir;
  auto cache = TuningCache::open(dir.file("programs.sqlite"));
  ASSERT_TRUE(cache);
  Workload w = matmul_workload();
  auto failing = [](int t0, TrialStatus status) {
    Trial t = ok_trial(t0, 0);
    t.median_ms.reset();
    t.repeats_ms.clear();
    t.status = status;
    t.message = std::string(trial_status_name(status));
    return t;
  };
  ASSERT_TRUE((*cache)->record_trials(0, w, here(),
                                      {ok_trial(1, 0.5), failing(2, TrialStatus::Crash), failing(3, TrialStatus::Timeout),
                                       failing(4, TrialStatus::OutOfMemory), failing(5, TrialStatus::WrongResult)}));
  EXPECT_EQ((*cache)->measured_options(w, here())->size(), 5u);
  EXPECT_EQ(*(*cache)->measured_programs(w, here()), (std::set<std::string>{"program1", "program2", "program5"}));
  // Measured fine once, the program is barred however often it also timed out.
  ASSERT_TRUE((*cache)->record_trials(0, w, here(), {ok_trial(3, 0.7)}));
  EXPECT_EQ(*(*cache)->measured_programs(w, here()), (std::set<std::string>{"program1", "program2", "program3", "program5"}));
}

TEST(Cache, ExportAndImportMergeByKey) {
  TempDir dir;
  std::string a = dir.file("a.sqlite"), b = dir.file("b.sqlite");
  fill(a, 5);
  std::stringstream lines;
  {
    auto cache = TuningCache::open(a, {.write = false});
    ASSERT_TRUE(cache);
    auto n = (*cache)->export_lines(lines);
    ASSERT_TRUE(n) << n.error();
    EXPECT_EQ(*n, 5);
  }
  Workload w = matmul_workload();
  auto cache = TuningCache::open(b);
  ASSERT_TRUE(cache);
  ASSERT_TRUE((*cache)->record_trials(0, w, here(), {ok_trial(1, 0.25)}));  // faster than a's best (1.0)
  std::string text = lines.str() + "\n{not json\n{\"tcstudio_cache\": 2, \"workload\": {}}\n";
  std::stringstream in(text);
  auto report = (*cache)->import_lines(in);
  ASSERT_TRUE(report) << report.error();
  EXPECT_EQ(report->lines, 7);
  EXPECT_EQ(report->candidates_added, 4);  // tile 1 was there already
  EXPECT_EQ(report->measurements_added, 5);
  ASSERT_EQ(report->skipped.size(), 2u);
  EXPECT_EQ(report->skipped[0].rfind("line 7: not a JSON object", 0), 0u) << report->skipped[0];
  EXPECT_EQ(report->skipped[1].rfind("line 8: a field is missing", 0), 0u) << report->skipped[1];
  EXPECT_DOUBLE_EQ((*(*cache)->best(w, here()))->median_ms, 0.25);
  // Each candidate's program travels with it.
  EXPECT_EQ(*(*cache)->measured_programs(w, here()),
            (std::set<std::string>{"program1", "program2", "program3", "program4", "program5"}));
  std::stringstream again(lines.str());
  auto second = (*cache)->import_lines(again);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->measurements_added, 0);
  EXPECT_EQ(second->duplicates, 5);
  EXPECT_EQ(count_rows(b, "measurements"), 6);
}
