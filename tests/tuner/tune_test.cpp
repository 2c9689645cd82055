// Tuning sessions for real: candidates compiled and measured in a child process, stored
// in an SQLite file. A crashing, a hanging and a wrong-result candidate each cost one
// trial; a session killed with SIGKILL resumes with nothing lost or measured twice; the
// search is deterministic for a seed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "kernel/KernelSetup.h"
#include "loopnest/LoopNest.h"
#include "poly/Lowering.h"
#include "targets/Target.h"
#include "tuner/Search.h"
#include "tuner/Tuner.h"
#include "tuner/Worker.h"
#include "tuner/WorkerProcess.h"

namespace fs = std::filesystem;
using namespace tcs;
using namespace tcs::tuner;

namespace {

const char* kMatmul = R"(# sizes: M=48 K=32 N=40
def matmul(float(M,K) A, float(K,N) B) -> (C) {
    C(m, n) +=! A(m, k) * B(k, n)
}
)";

struct Fixture {
  fs::path dir;
  std::shared_ptr<const CheckedFile> file = check_source("matmul.tc", kMatmul);
  KernelSetup kernel;
  Fixture() {
    char tmpl[] = "/tmp/tcs_tune_test_XXXXXX";
    dir = mkdtemp(tmpl);
    kernel = *kernel_setup(file, KernelSpec{});
  }
  ~Fixture() { fs::remove_all(dir); }
  std::string db() const { return (dir / "cache.sqlite").string(); }
};

TuneSettings quick(std::vector<std::string> worker, int trials) {
  TuneSettings s;
  s.trials = trials;
  s.batch = 5;
  s.threads = 1;
  s.timeout_s = 3;
  s.remeasure = 2;
  s.worker_command = std::move(worker);
  return s;
}

// status -> count, and how many measurements the most-measured candidate has.
std::map<std::string, int> statuses(const std::string& db, int* most_per_candidate = nullptr) {
  sqlite3* h = nullptr;
  sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
  std::map<std::string, int> out;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "SELECT status, count(*) FROM measurements GROUP BY status", -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW)
    out[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))] = sqlite3_column_int(st, 1);
  sqlite3_finalize(st);
  if (most_per_candidate) {
    sqlite3_prepare_v2(h, "SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM measurements GROUP BY candidate_id)", -1, &st,
                       nullptr);
    *most_per_candidate = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return out;
}

}  // namespace

TEST(Tune, CrashHangAndWrongResultEachCostOneTrial) {
  Fixture f;
  auto cache = TuningCache::open(f.db());
  ASSERT_TRUE(cache) << cache.error();
  auto result = tune(**cache, f.kernel, quick({TCS_FAULT_WORKER}, 10));
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->progress.trials, 10);
  EXPECT_EQ(result->progress.failures, 4);
  EXPECT_EQ(result->stopped_because, "trial budget");
  auto counts = statuses(f.db());
  EXPECT_EQ(counts["crash"], 1);
  EXPECT_EQ(counts["timeout"], 1);
  EXPECT_EQ(counts["wrong-result"], 2);
  EXPECT_EQ(counts["ok"], 6);
  auto detail = (*cache)->show(workload_of(f.kernel).key, 20);
  ASSERT_TRUE(detail) << detail.error();
  std::map<std::string, std::string> reason;
  for (const CandidateSummary& c : (*detail)[0].top) reason[c.last_status] = c.last_message;
  EXPECT_NE(reason["crash"].find("signal 11"), std::string::npos) << reason["crash"];
  EXPECT_NE(reason["timeout"].find("no result within 3 s"), std::string::npos) << reason["timeout"];
  EXPECT_NE(reason["wrong-result"].find("C(0, 0) is "), std::string::npos) << reason["wrong-result"];
  ASSERT_TRUE(result->best);
  EXPECT_GT(result->best->median_ms, 0);
  EXPECT_GE(result->best->verified_repeats, 30);
}

// Jobs sent ahead are compiled while the one before is timed; when the child dies or
// hangs with several inside, each failure still lands on the job that caused it, and the
// jobs around it are measured as if sent alone.
TEST(Worker, JobsSentAheadEachGetTheirOwnOutcome) {
  Fixture f;
  SearchSpace space(f.kernel);
  std::vector<Candidate> presets = space.presets();
  ASSERT_FALSE(presets.empty());
  WorkerProcess worker({TCS_FAULT_WORKER});
  for (int64_t id = 1; id <= 6; ++id) {
    MeasureJob job;
    job.id = id;
    job.source = f.file->file.text();
    job.entry = "matmul";
    job.sizes = f.kernel.shapes.sizes;
    job.options_json = presets[size_t(id) % presets.size()].json;
    worker.send(job, 2);
  }
  EXPECT_EQ(worker.in_flight(), 6u);
  std::vector<TrialStatus> got;
  for (int64_t id = 1; id <= 6; ++id) {
    auto r = worker.receive();
    ASSERT_TRUE(r) << r.error();
    EXPECT_EQ(r->id, id);
    got.push_back(r->status);
    if (r->status == TrialStatus::Ok) {
      EXPECT_GT(*r->median_ms, 0);
    }
  }
  EXPECT_EQ(got, (std::vector<TrialStatus>{TrialStatus::Ok, TrialStatus::Crash, TrialStatus::Timeout,
                                           TrialStatus::WrongResult, TrialStatus::Ok, TrialStatus::Ok}));
  EXPECT_EQ(worker.in_flight(), 0u);
  EXPECT_FALSE(worker.receive()) << "nothing is in flight";
}

namespace {

// A kernel whose first `slow_calls` calls each take 40 ms more: a first run disturbed from
// outside (-1: every call is slow).
class SlowCalls final : public Kernel {
 public:
  SlowCalls(std::shared_ptr<Kernel> inner, int slow_calls)
      : Kernel(inner->def(), inner->shapes()), inner_(std::move(inner)), slow_calls_(slow_calls) {}
  std::string_view target() const override { return inner_->target(); }
  void set_threads(int t) override { inner_->set_threads(t); }
  int threads() const override { return inner_->threads(); }
  std::vector<std::string> local_temporaries() const override { return inner_->local_temporaries(); }
  Status run_buffers(std::vector<Tensor>& buffers) const override {
    if (slow_calls_ < 0 || calls_++ < slow_calls_) std::this_thread::sleep_for(std::chrono::milliseconds(40));
    return inner_->run_buffers(buffers);
  }

 private:
  std::shared_ptr<Kernel> inner_;
  int slow_calls_;
  mutable std::atomic<int> calls_{0};
};

}  // namespace

// An unchecked job (the tuner's pace program, a finalist of the final turns) that comes
// again with the same options reuses the kernel compiled for it, and the hooks still wrap
// it anew for each job; a checked job (a trial) is always compiled.
TEST(Worker, UncheckedJobsThatComeAgainAreCompiledOnce) {
  Fixture f;
  MeasureJob job;
  job.source = f.file->file.text();
  job.entry = "matmul";
  job.sizes = f.kernel.shapes.sizes;
  job.options_json = SearchSpace(f.kernel).presets().at(0).json;
  job.min_calls = 3;
  std::vector<int64_t> wrapped;
  WorkerHooks hooks;
  hooks.wrap_kernel = [&](std::shared_ptr<Kernel> k, const MeasureJob& j) {
    wrapped.push_back(j.id);
    return k;
  };
  std::vector<double> compile_ms;
  for (bool check : {false, false, true}) {
    job.id = int64_t(compile_ms.size()) + 1;
    job.check = check;
    MeasureReply r = run_job(job, hooks);
    ASSERT_EQ(r.status, TrialStatus::Ok) << r.message;
    compile_ms.push_back(r.compile_ms);
  }
  EXPECT_LT(compile_ms[1], compile_ms[0] / 10) << "the second unchecked job found its kernel";
  EXPECT_GT(compile_ms[2], compile_ms[1] * 10) << "a checked job is compiled";
  EXPECT_EQ(wrapped, (std::vector<int64_t>{1, 2, 3}));
}

// The cutoff (a candidate far slower than the best is timed once) is decided by a call
// run alone, not by the checked first run, which shares the cores with other compiles.
TEST(Worker, AFirstRunPastTheCutoffIsRepeatedAloneBeforeItIsCut) {
  Fixture f;
  MeasureJob job;
  job.id = 1;
  job.source = f.file->file.text();
  job.entry = "matmul";
  job.sizes = f.kernel.shapes.sizes;
  job.options_json = SearchSpace(f.kernel).presets().at(0).json;
  job.check = true;
  job.min_calls = 5;
  job.cutoff_ms = 20;
  for (int slow : {1, -1}) {
    WorkerHooks hooks;
    hooks.wrap_kernel = [slow](std::shared_ptr<Kernel> k, const MeasureJob&) -> std::shared_ptr<Kernel> {
      return std::make_shared<SlowCalls>(std::move(k), slow);
    };
    MeasureReply r = run_job(job, hooks);
    ASSERT_EQ(r.status, TrialStatus::Ok) << r.message;
    ASSERT_TRUE(r.median_ms);
    if (slow == 1) {  // only the checked run was slow: timed in full
      EXPECT_LT(*r.median_ms, job.cutoff_ms);
      EXPECT_GE(r.repeats_ms.size(), 5u);
      EXPECT_EQ(r.message, "");
    } else {  // slow alone too: cut, with the figure of the call run alone
      EXPECT_GT(*r.median_ms, job.cutoff_ms);
      EXPECT_EQ(r.repeats_ms.size(), 1u);
      EXPECT_NE(r.message.find("timed once"), std::string::npos) << r.message;
    }
  }
}

// Options that make a program measured already are not measured again: every measured
// candidate lowers to a loop nest of its own.
// Across sessions too: the second resumes the first, and the cache tells it which
// programs the first measured (each candidate's program is stored with it).
TEST(Tune, EachProgramIsMeasuredOnce) {
  Fixture f;
  auto cache = TuningCache::open(f.db());
  ASSERT_TRUE(cache) << cache.error();
  int trials = 0;
  for (int session = 0; session < 2; ++session) {
    auto result = tune(**cache, f.kernel, quick({TCS_CLI, "worker"}, 30));
    ASSERT_TRUE(result) << result.error();
    EXPECT_GT(result->progress.same_program, 0) << "a 48x32x40 matmul has many options for one program";
    trials += result->progress.trials;
  }
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open_v2(f.db().c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "SELECT DISTINCT c.options, c.program FROM candidates c JOIN measurements m USING(candidate_id)", -1,
                     &st, nullptr);
  std::map<std::string, std::string> program_of;  // the nest's text -> the options that made it
  int measured = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::string json = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    auto options = mapping_options_from_json(json);
    ASSERT_TRUE(options) << options.error();
    auto lowered = lower_to_loop_nest(*f.kernel.def, f.kernel.shapes, *options, find_target("cpu")->mapping_passes);
    ASSERT_TRUE(lowered) << lowered.error();
    std::string text = loop_nest_to_string(lowered->nest);
    const unsigned char* stored = sqlite3_column_text(st, 1);
    EXPECT_EQ(stored ? reinterpret_cast<const char*>(stored) : "(none)", program_key(lowered->nest)) << json;
    auto [at, fresh] = program_of.emplace(text, json);
    EXPECT_TRUE(fresh) << json << "\nmakes the program of\n" << at->second;
    ++measured;
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  EXPECT_EQ(measured, trials);
}

// A pack in the tensor's own order makes one program whether the order is written out
// or left empty, so the tuner counts those options as one.
TEST(Tune, APackInItsTensorsOrderIsOneProgramWrittenEitherWay) {
  Fixture f;
  auto program = [&](const char* json) {
    auto options = mapping_options_from_json(json);
    EXPECT_TRUE(options) << options.error();
    auto lowered = lower_to_loop_nest(*f.kernel.def, f.kernel.shapes, *options, find_target("cpu")->mapping_passes);
    EXPECT_TRUE(lowered) << lowered.error();
    return lowered ? loop_nest_to_string(lowered->nest) : std::string();
  };
  auto with_pack = [](const std::string& pack) {
    return R"({"outerScheduleFusionStrategy": "Min", "fixParametersBeforeScheduling": true, "tile": [16, 16, 16],)"
           R"( "cpu": {"pack": [)" + pack + "]}}";
  };
  std::string plain = program(with_pack(R"({"tensor": "B", "depth": 1})").c_str());
  EXPECT_NE(plain.find("pack B["), std::string::npos) << plain;
  EXPECT_EQ(program(with_pack(R"({"tensor": "B", "depth": 1, "order": [0, 1]})").c_str()), plain);
  EXPECT_NE(program(with_pack(R"({"tensor": "B", "depth": 1, "order": [1, 0]})").c_str()), plain);
}

// Options that differ only where a kernel has nothing to choose make one program, and one
// key (loopnest/LoopNest.h): a pooling's one reduction fuses the same under any strategy.
// An option that changes the loops changes the key. bench_cpu times a tuned pick with the
// grid pick's key once, as the grid's.
TEST(Tune, OptionsAKernelHasNoChoiceInMakeOneProgramKey) {
  std::shared_ptr<const CheckedFile> file = check_source("maxpool.tc", R"(def maxpool(float(N,C,H,W) I) -> (O) {
    O(n, c, h, w) max=! I(n, c, 2*h + kh, 2*w + kw) where kh in 0:2, kw in 0:2
}
)");
  KernelSpec spec;
  spec.sizes = {{"N", 2}, {"C", 8}, {"H", 16}, {"W", 16}};
  auto kernel = kernel_setup(file, spec);
  ASSERT_TRUE(kernel) << kernel.error();
  auto key = [&](const char* json) {
    auto options = mapping_options_from_json(json);
    EXPECT_TRUE(options) << options.error();
    auto lowered = lower_to_loop_nest(*kernel->def, kernel->shapes, *options, find_target("cpu")->mapping_passes);
    EXPECT_TRUE(lowered) << lowered.error();
    return lowered ? program_key(lowered->nest) : std::string();
  };
  std::string max = key(R"({"outerScheduleFusionStrategy": "Max", "intraTileScheduleFusionStrategy": "Max"})");
  EXPECT_EQ(max.size(), 16u);
  EXPECT_EQ(key(R"({"outerScheduleFusionStrategy": "Preserve3Coincident", "intraTileScheduleFusionStrategy": "Min"})"), max);
  EXPECT_NE(key(R"({"outerScheduleFusionStrategy": "Max", "intraTileScheduleFusionStrategy": "Max", "cpu": {"vectorize": false}})"), max);
  EXPECT_NE(key(R"({"outerScheduleFusionStrategy": "Max", "intraTileScheduleFusionStrategy": "Max", "cpu": {"parallel": false}})"), max);
}

TEST(Tune, KilledSessionResumesWithNothingLostOrRepeated) {
  Fixture f;
  std::string cli = TCS_CLI;
  pid_t pid = fork();
  if (pid == 0) {
    auto cache = TuningCache::open(f.db());
    if (!cache) _exit(2);
    auto r = tune(**cache, f.kernel, quick({cli, "worker"}, 1000));
    _exit(r ? 0 : 3);
  }
  auto measured = [&] {
    auto counts = statuses(f.db());
    int n = 0;
    for (const auto& [s, c] : counts) n += c;
    return n;
  };
  for (int waited = 0; measured() < 10 && waited < 6000; ++waited) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  int before = measured();
  ASSERT_GE(before, 10);
  EXPECT_EQ(before % 5, 0) << "rounds are stored whole";

  auto cache = TuningCache::open(f.db());
  ASSERT_TRUE(cache) << cache.error();
  auto result = tune(**cache, f.kernel, quick({cli, "worker"}, 10));
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->progress.known, before);
  int most = 0;
  statuses(f.db(), &most);
  EXPECT_EQ(measured(), before + 10);
  EXPECT_EQ(most, 1) << "a candidate measured before the kill was measured again";
  auto detail = (*cache)->show(workload_of(f.kernel).key, 1);
  ASSERT_TRUE(detail);
  ASSERT_EQ((*detail)[0].sessions.size(), 2u);
  EXPECT_EQ((*detail)[0].sessions[0].status, "running") << "the killed session never ended";
  EXPECT_EQ((*detail)[0].sessions[1].status, "finished");
}

TEST(Search, DeterministicForASeedAndAlwaysValid) {
  Fixture f;
  auto draw = [&](uint64_t seed) {
    SearchSpace space(f.kernel);
    std::mt19937_64 rng(seed);
    std::vector<std::string> out;
    for (const Candidate& c : space.presets()) out.push_back(c.json);
    std::vector<std::string> parents = {out.front()};
    for (int round = 0; round < 4; ++round)
      for (const Candidate& c : space.next(rng, parents, 16)) {
        EXPECT_TRUE(mapping_options_validate(c.options)) << c.json;
        out.push_back(c.json);
        parents.push_back(c.json);
      }
    return out;
  };
  auto a = draw(42), b = draw(42), c = draw(43);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(std::set<std::string>(a.begin(), a.end()).size(), a.size()) << "a candidate was proposed twice";
}

// Sketches come from the kernel's structure and samples keep to them: a convolution's
// tiles are factors (or powers of two) of its loops' extents, its register tile's columns
// whole vectors, its point loops reordered only outside the register tile, and every
// sample and move is valid options.
TEST(Search, SketchesShapeTheSamples) {
  std::shared_ptr<const CheckedFile> file = check_source("conv.tc", R"(# sizes: N=2 C=4 H=18 W=18 F=8 KH=3 KW=3
def conv2d(float(N,C,H,W) I, float(F,C,KH,KW) W1) -> (O) {
    O(n, f, h, w) +=! I(n, c, h + kh, w + kw) * W1(f, c, kh, kw)
}
)");
  KernelSetup conv = *kernel_setup(file, KernelSpec{});
  SketchSpace space(conv);
  ASSERT_GE(space.sketches().size(), 3u);
  EXPECT_EQ(space.sketches()[0].name, "default");
  bool register_tiled = false, untiled_variant = false;
  for (const Sketch& s : space.sketches()) {
    register_tiled |= !s.base.register_tile.empty();
    untiled_variant |= s.name.find("no register tile") != std::string::npos;
  }
  EXPECT_TRUE(register_tiled && untiled_variant);
  const std::vector<int64_t> extents = {2, 8, 16, 16, 4, 3, 3};  // n f h w c kh kw
  EXPECT_EQ(SketchSpace::tile_choices(16), (std::vector<int64_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(SketchSpace::tile_choices(12), (std::vector<int64_t>{1, 2, 3, 4, 6, 8, 12}));
  std::mt19937_64 rng(7);
  int invalid_moves = 0, reordered = 0, whole_with_partial_step = 0;
  for (int i = 0; i < 200; ++i) {
    const Sketch& s = space.sketches()[size_t(i) % space.sketches().size()];
    MappingOptions o = space.sample(rng, s);
    ASSERT_TRUE(mapping_options_validate(o)) << s.name << ": " << mapping_options_to_json(o);
    EXPECT_EQ(o.outer_fusion, s.base.outer_fusion) << "the structure is kept";
    EXPECT_EQ(o.tile.size(), s.base.tile.size());
    EXPECT_EQ(o.register_tile.size(), s.base.register_tile.size());
    if (o.tile.size() == extents.size())
      for (size_t d = 0; d < o.tile.size(); ++d) {
        std::vector<int64_t> allowed = SketchSpace::tile_choices(extents[d]);
        bool register_multiple = d < o.register_tile.size() && o.tile[d] % o.register_tile[d] == 0;
        EXPECT_TRUE(std::count(allowed.begin(), allowed.end(), o.tile[d]) || register_multiple)
            << "tile[" << d << "] = " << o.tile[d] << " in " << mapping_options_to_json(o);
      }
    if (!o.register_tile.empty()) {
      EXPECT_EQ(o.register_tile.back() % o.cpu.vector_width, 0) << mapping_options_to_json(o);
      whole_with_partial_step += o.tile.size() == extents.size() && o.tile[1] == extents[1] && extents[1] % o.register_tile[1] != 0;
      const std::vector<int>& order = o.cpu.point_loop_order;
      const std::vector<int>& base = s.base.cpu.point_loop_order;
      ASSERT_EQ(order.size(), base.size()) << mapping_options_to_json(o);
      EXPECT_TRUE(std::equal(order.end() - 2, order.end(), base.end() - 2)) << "register rows and columns stay innermost";
      EXPECT_TRUE(std::is_permutation(order.begin(), order.end(), base.begin()));
    }
    MappingOptions moved = space.mutate(rng, o);
    invalid_moves += !mapping_options_validate(moved);
    reordered += o.cpu.point_loop_order != s.base.cpu.point_loop_order || moved.cpu.point_loop_order != o.cpu.point_loop_order;
  }
  EXPECT_LE(invalid_moves, 10) << "of 200 moves on valid samples";
  EXPECT_GE(reordered, 20) << "the loop order is an annotation samples and moves change";
  EXPECT_GE(whole_with_partial_step, 1) << "a tile over its loop's whole extent stays whole whatever the register tile";
}

TEST(Tune, SeveralKernelsShareOneBudget) {
  Fixture f;
  KernelSetup small = *kernel_setup(f.file, KernelSpec{"", {{"M", 24}, {"K", 16}, {"N", 20}}, {}});
  auto cache = TuningCache::open(f.db());
  ASSERT_TRUE(cache) << cache.error();
  std::vector<size_t> order;
  auto results = tune_tasks(**cache, {&f.kernel, &small}, quick({TCS_CLI, "worker"}, 20),
                            [&](size_t task, const TuneProgress&) { order.push_back(task); });
  ASSERT_TRUE(results) << results.error();
  ASSERT_EQ(results->size(), 2u);
  EXPECT_EQ((*results)[0].progress.trials + (*results)[1].progress.trials, 20);
  ASSERT_GE(order.size(), 10u);
  EXPECT_EQ(std::vector<size_t>(order.begin(), order.begin() + 10), (std::vector<size_t>{0, 0, 0, 0, 0, 1, 1, 1, 1, 1}))
      << "one round each first";
  for (const TuneResult& r : *results) {
    EXPECT_EQ(r.stopped_because, "trial budget");
    EXPECT_TRUE(r.best);
  }
  auto listed = (*cache)->list();
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->size(), 2u);
}

// Patience: a session stops a kernel after that many rounds in a row without a 1 % gain,
// and with patience 0 only its budget stops it. The second session resumes the first, so
// its rounds start from a best already found: with patience 1 it would stop after one
// round that does not beat it by 1 %.
TEST(Tune, PatienceStopsAKernelThatStopsGainingAndZeroNever) {
  Fixture f;
  auto cache = TuningCache::open(f.db());
  ASSERT_TRUE(cache) << cache.error();
  TuneSettings s = quick({TCS_CLI, "worker"}, 200);
  s.patience_rounds = 1;
  auto first = tune(**cache, f.kernel, s);
  ASSERT_TRUE(first) << first.error();
  EXPECT_EQ(first->stopped_because, "no gain for 1 rounds");
  EXPECT_LT(first->progress.trials, 200);
  s.trials = 15;
  s.patience_rounds = 0;
  auto second = tune(**cache, f.kernel, s);
  ASSERT_TRUE(second) << second.error();
  EXPECT_EQ(second->stopped_because, "trial budget");
  EXPECT_EQ(second->progress.trials, 15);
}

// Options the user starts from are measured first, as many rounds as they fill, before the
// search breeds anything (only the room the last of them leaves), and patience waits for
// them: here a second session, whose rounds start from the first's best, with patience 1.
TEST(Tune, StartingOptionsComeFirstAndPatienceWaitsForThem) {
  Fixture f;
  auto cache = TuningCache::open(f.db());
  ASSERT_TRUE(cache) << cache.error();
  TuneSettings s = quick({TCS_CLI, "worker"}, 10);
  s.batch = 2;
  s.patience_rounds = 0;
  ASSERT_TRUE(tune(**cache, f.kernel, s));
  s.trials = 12;
  s.patience_rounds = 1;
  for (const char* tile : {"[8, 8, 8]", "[16, 8, 8]", "[8, 16, 8]", "[24, 8, 16]"}) {
    auto o = mapping_options_from_json(std::string(R"({"outerScheduleFusionStrategy": "Min", "tile": )") + tile + "}");
    ASSERT_TRUE(o) << o.error();
    s.start.push_back(*o);
  }
  auto result = tune(**cache, f.kernel, s);
  ASSERT_TRUE(result) << result.error();
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open_v2(f.db().c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "SELECT c.origin, c.round FROM candidates c JOIN measurements m USING(candidate_id) WHERE m.session_id = ?1",
                     -1, &st, nullptr);
  sqlite3_bind_int64(st, 1, result->session);
  int starts = 0, last_start_round = -1, first_other_round = 1 << 30;
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::string origin = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    int round = sqlite3_column_int(st, 1);
    if (origin == "start") ++starts, last_start_round = std::max(last_start_round, round);
    else first_other_round = std::min(first_other_round, round);
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  EXPECT_EQ(starts, 4) << "stopped: " << result->stopped_because;
  EXPECT_EQ(last_start_round, 1) << "four starts in batches of two take two rounds";
  EXPECT_GE(first_other_round, last_start_round) << "nothing else is measured while starts wait";
}

// Six trials started from one hand set (`kHandSet`), with the fault worker's hooks set in
// the environment for the session's length (the hand set's options are the first hook's
// value); whether that set won, and the session's result.
const char* kHandSet = R"({"outerScheduleFusionStrategy": "Min", "tile": [8, 8, 8]})";
struct StartedSession {
  Expected<TuneResult> result;
  bool start_won = false;
};
// With `measured_before`, a session handed the same set is cancelled after its first round
// first: the hand set is measured, and no final turns are run.
StartedSession tune_from_hand_set(const Fixture& f, const char* options_hook,
                                  const std::vector<std::pair<const char*, std::string>>& more_hooks,
                                  bool measured_before = false) {
  auto cache = TuningCache::open(f.db());
  if (!cache) return {cache.failure()};
  auto start = mapping_options_from_json(kHandSet);
  TuneSettings s = quick({TCS_FAULT_WORKER}, 6);
  s.start = {*start};
  ::setenv(options_hook, mapping_options_to_json(*start).c_str(), 1);
  for (const auto& [name, value] : more_hooks) ::setenv(name, value.c_str(), 1);
  auto sessions = [&]() -> Expected<TuneResult> {
    if (measured_before) {
      std::atomic<bool> cancel{false};
      auto earlier = tune(**cache, f.kernel, s, [&](const TuneProgress&) { cancel = true; }, &cancel);
      if (!earlier) return earlier.failure();
    }
    return tune(**cache, f.kernel, s);
  };
  StartedSession out{sessions()};
  ::unsetenv(options_hook);
  for (const auto& [name, value] : more_hooks) ::unsetenv(name);
  if (out.result && out.result->best) {
    auto won = mapping_options_from_json(out.result->best->options_json);
    out.start_won = won && *won == *start;
  }
  return out;
}

// A starting option that its one trial put behind the search's fastest, by less than the
// noise of a shared host, is timed again in the final turns beside them and wins there
// when it is the faster. Only the fastest few were re-timed, so a hand set timed at an
// unlucky moment was lost to a slower pick (bench_cpu's softmax: tuned 0.84-0.91 of the
// grid it was started from).
TEST(Tune, StartingOptionsNearTheFastestAreTimedAgainAtTheEnd) {
  Fixture f;
  // Its trial the slowest (22 ms against 20 a call), the final turns see it fast.
  auto [result, start_won] = tune_from_hand_set(f, "TCS_TEST_FAST_OPTIONS", {{"TCS_TEST_FAST_WHEN_FINAL", "1"}});
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->progress.failures, 0);
  ASSERT_TRUE(result->best);
  EXPECT_TRUE(start_won) << "the winner: " << result->best->options_json;
  EXPECT_LT(result->best->median_ms, 15.0) << "timed fast in the final turns";
}

// A start the search beats by less than the noise between processes stays the winner; one
// it beats clearly does not (tuner/Task.cpp, kClearlyFaster). The fault worker runs every
// candidate 10 ms a call and the start that many per cent slower.
TEST(Tune, AStartIsDisplacedOnlyByAClearlyFasterCandidate) {
  for (int percent : {1, 12}) {
    Fixture f;
    auto [result, start_won] = tune_from_hand_set(f, "TCS_TEST_SLOWER_OPTIONS", {{"TCS_TEST_SLOWER_PERCENT", std::to_string(percent)}});
    ASSERT_TRUE(result) << result.error();
    ASSERT_TRUE(result->best);
    EXPECT_EQ(start_won, percent == 1) << percent << " % slower; the winner: " << result->best->options_json;
    // The result says which rule chose: a user sees why a faster-looking newcomer lost.
    EXPECT_TRUE(result->chosen.starts_with(percent == 1 ? "kept the starting options" : "a newcomer displaced the starting options"))
        << result->chosen;
  }
}

// The host's pace: when the machine turns twice as slow halfway through a session, the
// program timed for the pace reads twice its trial's time, and the session says so. The
// pace timings are not trials: the cache holds the trials alone. Batches of five: round 1
// has nothing to pace by; rounds 2 to 4 each time the pace first (jobs 6, 12 and 18), so
// with the host slower from job 12 the last three read about 1, 2 and 2.
TEST(Tune, TheHostsPaceIsTimedBetweenRoundsAndIsNoTrial) {
  Fixture f;
  auto cache = TuningCache::open(f.db());
  ASSERT_TRUE(cache) << cache.error();
  TuneSettings s = quick({TCS_FAULT_WORKER}, 20);
  s.pace_every_s = 0;  // every round
  s.patience_rounds = 0;
  ::setenv("TCS_TEST_HOST_SLOWS_AT", "12", 1);
  auto result = tune(**cache, f.kernel, s);
  ::unsetenv("TCS_TEST_HOST_SLOWS_AT");
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->progress.trials, 20);
  EXPECT_NEAR(result->progress.pace, 2.0, 0.3) << "the machine runs the pace program twice as slowly as in its trial";
  int measured = 0;
  for (const auto& [status, count] : statuses(f.db())) measured += count;
  EXPECT_EQ(measured, 20) << "only trials are recorded";
}

// A start an earlier session measured before it was cancelled (or killed) is not measured
// again, and it still joins the final turns when its figure from then came near the
// fastest. It was left out of them, and lost to options that only its one unlucky trial
// had put ahead.
TEST(Tune, AStartMeasuredInAnEarlierSessionIsTimedAgainAtTheEnd) {
  Fixture f;
  auto [result, start_won] = tune_from_hand_set(f, "TCS_TEST_FAST_OPTIONS", {{"TCS_TEST_FAST_WHEN_FINAL", "1"}},
                                                /*measured_before=*/true);
  ASSERT_TRUE(result) << result.error();
  ASSERT_TRUE(result->best);
  EXPECT_TRUE(start_won) << "the winner: " << result->best->options_json << "; " << result->chosen;
  EXPECT_LT(result->best->median_ms, 15.0) << "timed fast in the final turns";
  auto cache = TuningCache::open(f.db());
  ASSERT_TRUE(cache) << cache.error();
  Workload w = workload_of(f.kernel);
  TargetIdentity target = tuning_target(find_target("cpu")->identify(), 1);
  auto hand_set = mapping_options_to_json(*mapping_options_from_json(kHandSet));
  auto sessions = (*cache)->fastest_median(w, target, hand_set);
  ASSERT_TRUE(sessions && *sessions) << "the hand set has a measured figure";
  int trials_of_hand_set = 0;
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open_v2(f.db().c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "SELECT count(*) FROM candidates c JOIN measurements m USING(candidate_id) WHERE c.options = ?1", -1, &st,
                     nullptr);
  sqlite3_bind_text(st, 1, hand_set.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st) == SQLITE_ROW) trials_of_hand_set = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  EXPECT_EQ(trials_of_hand_set, 1) << "measured once, by the earlier session; the final turns are not trials";
}

// The cache's best record is timed in turns beside the session's finalists. A record an
// earlier session found (here options this session never samples, faster than all it
// measures, with a figure from a calmer moment no trial can beat) stays the best, and its
// figure is the one timed now. Re-measuring the finalists alone and storing the fastest
// replaced it with a slower one.
TEST(Tune, TheStoredBestIsTimedBesideTheFinalistsAndKeptWhenFaster) {
  Fixture f;
  auto cache = TuningCache::open(f.db());
  ASSERT_TRUE(cache) << cache.error();
  TargetIdentity target = tuning_target(find_target("cpu")->identify(), 1);
  Workload w = workload_of(f.kernel);
  ASSERT_TRUE((*cache)->set_best(w, target, R"({"tile": [8, 8, 8]})", 1e-6, 30));
  auto stored = (*cache)->best(w, target);
  ASSERT_TRUE(stored && *stored);
  const std::string earlier = (*stored)->options_json;
  ::setenv("TCS_TEST_FAST_OPTIONS", earlier.c_str(), 1);  // every other candidate 20 ms slower a call
  auto result = tune(**cache, f.kernel, quick({TCS_FAULT_WORKER}, 3));
  ::unsetenv("TCS_TEST_FAST_OPTIONS");
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->progress.trials, 3);
  EXPECT_EQ(result->progress.failures, 0);
  ASSERT_TRUE(result->best);
  EXPECT_EQ(result->best->options_json, earlier) << "a slower finalist replaced the stored best";
  EXPECT_GT(result->best->median_ms, 1e-6) << "the stored record kept its old figure";
  EXPECT_LT(result->best->median_ms, 10.0);
  EXPECT_GE(result->best->verified_repeats, 30);
  auto measured = (*cache)->measured_options(w, target);
  ASSERT_TRUE(measured);
  EXPECT_EQ(measured->count(earlier), 0u) << "the session sampled the stored options itself";
}

// A session timed with cold caches runs every candidate on rotated copies of its buffers
// and keeps its results apart from warm ones: the warm target has nothing measured.
TEST(Tune, ColdCachesAreTunedAndKeptApart) {
  Fixture f;
  auto cache = TuningCache::open(f.db());
  ASSERT_TRUE(cache) << cache.error();
  TuneSettings s = quick({TCS_CLI, "worker"}, 5);
  s.cold = true;
  auto results = tune_tasks(**cache, {&f.kernel}, s, nullptr);
  ASSERT_TRUE(results) << results.error();
  ASSERT_TRUE((*results)[0].best);
  EXPECT_EQ((*results)[0].progress.failures, 0);
  TargetIdentity machine = find_target("cpu")->identify();
  Workload w = workload_of(f.kernel);
  auto cold = (*cache)->best(w, tuning_target(machine, 1, true));
  auto warm = (*cache)->best(w, tuning_target(machine, 1, false));
  ASSERT_TRUE(cold && warm);
  EXPECT_TRUE(*cold);
  EXPECT_FALSE(*warm);
  auto measured_warm = (*cache)->measured_options(w, tuning_target(machine, 1, false));
  ASSERT_TRUE(measured_warm);
  EXPECT_TRUE(measured_warm->empty()) << "a warm session would measure every candidate again";
}
