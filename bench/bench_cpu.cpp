// The CPU backend against its peers (issue 3), in one run on one machine.
//
//   bench_cpu [--rounds N] [--quick] [--only NAME,...] [--tuned DB [--tune TRIALS]]
//
// The parent process measures compile times itself and runs one child process per thread
// count (1 and 2, as the peers were measured: OPENBLAS_NUM_THREADS and OMP_NUM_THREADS
// set before the libraries load). Each child times every contender on every kernel of
// Workloads.cpp with cold caches, checks every result against a float64 reference, and
// prints one RESULT line per cell. Contenders are timed round by round, so figures that
// form a ratio see the same load from elsewhere on the host: where a memory-bound kernel
// is held against the machine's bandwidth, STREAM's triad runs in the kernel's rounds on
// the child's threads, and the 2-thread child also times the 1-thread child's grid pick
// on one thread (the 2t / 1t ratio). The parent prints the tables, the ratios and the
// targets, and exits 1 when a target does not hold.
//
// --quick: shorter timings, one round unless --rounds is given, and only the default
// preset's options plus the first two grid entries; every kernel still runs.
// --only: the kernels whose names start with one of these (e.g. --only tmm,mlp3), to
// iterate on a few; the full list is what PERFORMANCE.md records.
// --tuned DB: also "tcs tuned", the tuning cache's best for each kernel on this machine,
// with its targets (issue 13). --tune TRIALS first tunes every selected kernel into DB
// with `tcstudio-cli tune`, once per thread count, starting from the grid's hand sets (at
// most TRIALS trials and 10 minutes each; tuning resumes, so a second run adds to what
// the first found).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "BenchCompile.h"
#include "Workloads.h"
#include "codegen/CpuKernel.h"
#include "runtime/ThreadPool.h"
#include "runtime/Timing.h"
#include "support/CacheAligned.h"

namespace {

using bench::Workload;

// Every tensor of a kernel replicated into the core's cold_copies slots, so every call
// starts with cold caches (the peers' method). Inputs are equal in every slot.
struct Slots {
  std::vector<bench::TensorSpec> tensors;
  std::vector<std::vector<tcs::CacheAlignedVector<float>>> data;  // [slot][tensor], each on a cache line
  std::vector<std::vector<float*>> ptr;               // [slot][tensor]
  std::vector<double> reference;                      // slot 0's checked tensor in float64
  int checked = 0;

  Slots(const std::vector<bench::TensorSpec>& specs, const Workload& w) : tensors(specs), checked(w.checked) {
    size_t bytes = 0;
    for (const auto& t : tensors) bytes += size_t(t.numel) * sizeof(float);
    size_t count = tcs::cold_copies(bytes);
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> u(-1, 1);
    data.resize(count);
    for (const auto& t : tensors) {
      data[0].emplace_back(size_t(t.numel), 0.0f);
      if (t.input)
        for (float& x : data[0].back()) x = u(rng);
    }
    for (size_t s = 1; s < count; ++s) data[s] = data[0];
    for (auto& slot : data) {
      ptr.emplace_back();
      for (auto& t : slot) ptr.back().push_back(t.data());
    }
    std::vector<const float*> in(ptr[0].begin(), ptr[0].end());
    reference = w.reference(in);
  }
  size_t size() const { return data.size(); }

  // Normwise relative error of slot 0's checked output, after `call` wrote it from NaN.
  double error_of(const std::function<void(size_t)>& call) {
    for (size_t t = 0; t < tensors.size(); ++t)
      if (!tensors[t].input) std::fill(data[0][t].begin(), data[0][t].end(), NAN);
    call(0);
    const tcs::CacheAlignedVector<float>& c = data[0][checked];
    double diff = 0, norm = 0;
    for (size_t i = 0; i < reference.size(); ++i) {
      double d = double(c[i]) - reference[i];
      diff += d * d;
      norm += reference[i] * reference[i];
    }
    return std::isfinite(diff) && c.size() == reference.size() ? std::sqrt(diff / norm) : INFINITY;
  }
};

using Call = std::function<void(size_t slot)>;

// The row of the 1-thread child's grid pick timed again, on one thread, in the 2-thread
// child's rounds (see measure); the parent passes the picks in this variable.
const std::string kOneThreadPickAgain = "tcs 1t pick again";
const char* const kOneThreadPicksVariable = "TCS_BENCH_ONE_THREAD_PICKS";  // lines "kernel\tjson"

// The 1-thread child's grid pick for `kernel`, or empty.
std::string one_thread_pick(const std::string& kernel) {
  const char* all = std::getenv(kOneThreadPicksVariable);
  std::istringstream in(all ? all : "");
  for (std::string name, json; std::getline(in, name, '\t') && std::getline(in, json);)
    if (name == kernel) return json;
  return "";
}

// Pretty JSON on one line, for the RESULT lines (option JSON has no spaces inside strings).
std::string one_line(const std::string& json) {
  std::string out;
  bool space = false;
  for (char ch : json) {
    if (ch == '\n' || ch == ' ') {
      space = true;
      continue;
    }
    if (space && !out.empty() && out.back() != '{' && out.back() != '[' && ch != '}' && ch != ']') out += ' ';
    space = false;
    out += ch;
  }
  return out;
}

std::string g_only;   // --only, as given
std::string g_tuned;  // --tuned DB

std::vector<Workload> selected_workloads() {
  std::vector<Workload> all = bench::workloads(), out;
  if (g_only.empty()) return all;
  std::istringstream names(g_only);
  std::vector<std::string> prefixes;
  for (std::string n; std::getline(names, n, ',');) prefixes.push_back(n);
  for (const Workload& w : all)
    if (std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return w.name.starts_with(p); })) out.push_back(w);
  return out;
}
// Each timing of a contender in a round: at least this many calls and this many seconds.
int round_calls(bool quick) { return quick ? 3 : 10; }
double round_seconds(bool quick) { return quick ? 0.1 : 0.25; }

// Median milliseconds of cold calls through the core's one timing routine, as the CLI's
// run --cold times them: a warm-up over every slot, then at least `calls` calls and
// `seconds` of them, each timed alone.
double time_cold(const Call& call, const Slots& slots, int calls, double seconds) {
  tcs::TimingPlan plan{.min_calls = calls, .min_total_ms = seconds * 1e3};
  auto t = tcs::time_rotating([&](size_t slot) { return call(slot), tcs::success(); }, slots.size(), plan);
  return t ? t->median_ms : INFINITY;
}

struct Contender {
  std::string impl, note;
  Call call;
  double best_ms = INFINITY;
  double error = 0;
};

// One line the parent passes on to the notes (a grid entry that failed, a peer refused).
void note(const Workload& w, int threads, const std::string& text) {
  std::printf("NOTE\t%s\t%d\t%s\n", w.name.c_str(), threads, text.c_str());
  std::fflush(stdout);
}

// `tcstudio-cli run --repeat` on the same kernel, sizes and default preset as "tcs
// default", one thread, cold caches as here: the figure a user sees. The median of one
// run in milliseconds; INFINITY when it failed (said on stderr). The 1-thread child calls
// it once a round, right after timing the contenders, so both figures see the same load
// on the machine, and asks for as many runs as time_cold times in its `seconds`
// (`bench_ms` a call): layernorm's 30 runs took 1.5 ms, and on a shared host a third of
// such samples fell into a slower spell of a few milliseconds and read twice the median
// that 300 or 3000 runs read in the same minute.
double cli_median_ms(const Workload& w, int calls, double seconds, double bench_ms) {
  if (std::isfinite(bench_ms) && bench_ms > 0) calls = std::max(calls, int(std::ceil(seconds * 1e3 / bench_ms)));
  std::string cmd = "'" + std::string(TCS_CLI_BINARY) + "' run '" + w.dir + "/" + w.file + "'";
  for (const auto& [name, v] : w.sizes) cmd += " --size " + name + "=" + std::to_string(v);
  cmd += " --random --repeat " + std::to_string(calls) + " --threads 1 --cold --json";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return INFINITY;
  std::string out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  if (pclose(p) != 0) return std::fprintf(stderr, "tcstudio-cli run failed for %s:\n%s\n", w.name.c_str(), out.c_str()), INFINITY;
  size_t at = out.find("\"median_ms\":");
  return at == std::string::npos ? INFINITY : std::atof(out.c_str() + at + 12);
}

// STREAM's triad on three arrays of 320 MiB, far past any cache (PEERS.md's size), split
// over the pool's threads as our kernels' parallel loops are. GB/s of the 12 bytes an
// element moves (write-allocate traffic not counted, as STREAM and our GB/s figures do
// not count it); the median call after the core's warm-up.
struct StreamTriad {
  static constexpr long n = 80L << 20;
  tcs::CacheAlignedVector<float> a = tcs::CacheAlignedVector<float>(n), b = tcs::CacheAlignedVector<float>(n, 1.0f),
                                 c = tcs::CacheAlignedVector<float>(n, 2.0f);
  double gbs(tcs::ThreadPool& pool, bool quick) {
    tcs::TimingPlan plan{.min_calls = quick ? 5 : 20, .min_total_ms = quick ? 200.0 : 1000.0};
    auto t = tcs::time_rotating(
        [&](size_t) {
          pool.parallel_for(n, [&](int64_t begin, int64_t end) { peers::stream_triad(a.data(), b.data(), c.data(), 3.0f, begin, end); });
          return tcs::success();
        },
        1, plan);
    return t ? 12.0 * n / (t->median_ms * 1e6) : 0.0;
  }
};

void measure(const Workload& w, int threads, int rounds, bool quick, tcs::ThreadPool& pool) {
  BenchDef def(w.dir, w.file, w.sizes);
  // Our kernel takes one buffer per tensor of the def; temporaries the workload does not
  // name (softmax's mx, ex, sm; layernorm's mean, xc, var) become scratch tensors too.
  std::vector<bench::TensorSpec> tensors = w.tensors;
  std::vector<int> order;
  for (const auto& [name, numel] : def.buffers()) {
    auto it = std::find_if(tensors.begin(), tensors.end(), [&](const auto& t) { return t.name == name; });
    if (it == tensors.end()) it = tensors.insert(tensors.end(), bench::TensorSpec{name, numel, false});
    if (it->numel != numel) {
      std::fprintf(stderr, "bench_cpu: %s: tensor %s has %lld elements in the def, %lld in the workload\n", w.name.c_str(),
                   name.c_str(), (long long)numel, (long long)it->numel);
      std::exit(2);
    }
    order.push_back(int(it - tensors.begin()));
  }
  Slots slots(tensors, w);

  auto ours_on = [&](const std::shared_ptr<tcs::CpuKernel>& kernel, tcs::ThreadPool& on) -> Call {
    return [&slots, kernel, &on, order](size_t s) {
      std::vector<void*> ptr;
      for (int t : order) ptr.push_back(slots.ptr[s][t]);
      if (auto st = kernel->run_pointers(ptr.data(), &on); !st) std::fprintf(stderr, "error: %s\n", st.error().c_str()), std::exit(2);
    };
  };
  auto ours = [&](const std::shared_ptr<tcs::CpuKernel>& kernel) { return ours_on(kernel, pool); };

  std::vector<Contender> cs;
  for (const bench::PeerSpec& p : w.peers) {
    if (p.naive && threads > 1) continue;  // single-thread baselines
    try {
      auto run = std::make_shared<peers::Run>(p.make(slots.ptr[0].data()));
      cs.push_back({p.name, "", [&slots, run, args = p.args](size_t s) {
                      float* bufs[16];
                      for (size_t i = 0; i < args.size(); ++i) bufs[i] = slots.ptr[s][args[i]];
                      (*run)(bufs);
                    }});
    } catch (const std::exception& e) {
      note(w, threads, p.name + " refused: " + e.what());
    }
  }
  cs.push_back({"tcs default", "", ours(def.compile_preset("default"))});

  // The grid: the default preset's options as JSON, then the hand-picked sets; each is
  // checked once and timed briefly. Brief timings of sets within a few percent of each
  // other pick by chance (mlp3's pick once ran 4 % behind the default it had beaten), so
  // the three fastest are timed again, each with as many calls as one round of the
  // contenders, and the best of those is measured in full.
  std::vector<std::string> grid = {one_line(def.default_json())};
  for (size_t i = 0; i < w.grid.size() && (!quick || i < 2); ++i) grid.push_back(w.grid[i]);
  struct Entry {
    double ms;
    std::string json;
    std::shared_ptr<tcs::CpuKernel> kernel;
  };
  std::vector<Entry> screened;
  for (const std::string& json : grid) {
    std::string error;
    auto kernel = def.compile_json(json, &error);
    if (!kernel) {
      note(w, threads, "grid entry refused: " + one_line(json) + ": " + error);
      continue;
    }
    if (double e = slots.error_of(ours(kernel)); !(e < 1e-4)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2e", e);
      note(w, threads, "grid entry WRONG (error " + std::string(buf) + "): " + one_line(json));
      continue;
    }
    screened.push_back({time_cold(ours(kernel), slots, 3, quick ? 0.02 : 0.05), json, kernel});
  }
  std::sort(screened.begin(), screened.end(), [](const Entry& a, const Entry& b) { return a.ms < b.ms; });
  // With two threads the one-thread pick is a finalist too: its brief timing alone had put
  // it out of kru3's three once, and the set picked instead ran 20 % slower than it.
  std::string one_pick = threads > 1 ? one_thread_pick(w.name) : "";
  auto is_one_pick = [&](const Entry& e) { return !one_pick.empty() && one_line(e.json) == one_pick; };
  size_t finalists = 3;
  if (auto it = std::find_if(screened.begin(), screened.end(), is_one_pick); it != screened.end() && it - screened.begin() >= 3) {
    std::rotate(screened.begin() + 3, it, it + 1);  // fourth, the others in their order
    finalists = 4;
  }
  if (screened.size() > finalists) screened.resize(finalists);
  for (Entry& e : screened) e.ms = time_cold(ours(e.kernel), slots, round_calls(quick), round_seconds(quick));
  auto pick = std::min_element(screened.begin(), screened.end(), [](const Entry& a, const Entry& b) { return a.ms < b.ms; });
  // On one line: the RESULT line carries it, and the parent hands it back, line by line,
  // as the one-thread pick (a grid entry written over several lines broke both).
  std::string best_json = pick == screened.end() ? "" : one_line(pick->json);
  std::shared_ptr<tcs::CpuKernel> best_kernel = pick == screened.end() ? nullptr : pick->kernel;
  if (best_kernel) cs.push_back({"tcs grid best", best_json, ours(best_kernel)});
  // The two-thread child also runs the one-thread child's pick on one thread, in the same
  // rounds as the rest: ours 2t / 1t then compares the best of each at the same moments,
  // where two children minutes apart on a shared host had moved that ratio by up to 2x.
  tcs::ThreadPool alone(1);
  if (const std::string& json = one_pick; !json.empty()) {
    std::string error;
    if (auto kernel = def.compile_json(json, &error)) cs.push_back({kOneThreadPickAgain, "", ours_on(kernel, alone)});
    else note(w, threads, "the 1-thread pick refused: " + error);
  }
  // The tuner's best may make the grid's pick's program: then it is timed once (as the
  // grid's), since a second timing of it would differ from the first by the host's noise
  // alone (maxpool's tuned and grid picks named different fusion strategies for its one
  // statement, and read 1.00 and 0.998 of each other).
  bool tuned_is_grid_pick = false;
  if (!g_tuned.empty()) {
    std::string why, json = def.tuned_json(g_tuned, threads, &why), error;
    tuned_is_grid_pick = best_kernel && def.same_program(json, best_json);
    auto kernel = json.empty() || tuned_is_grid_pick ? nullptr : def.compile_json(json, &error);
    if (json.empty()) note(w, threads, "tuned: " + why);
    else if (tuned_is_grid_pick) note(w, threads, "tcs tuned: the grid's pick's program, timed once");
    else if (!kernel) note(w, threads, "tuned options refused: " + error);
    else cs.push_back({"tcs tuned", one_line(json), ours(kernel)});
  }

  // A kernel held against the machine's bandwidth: STREAM's triad is timed in every round
  // too, so both figures of that ratio see the same load from elsewhere on the host.
  std::unique_ptr<StreamTriad> triad = w.stream_goal > 0 ? std::make_unique<StreamTriad>() : nullptr;
  double triad_gbs = 0;
  double cli_ms = INFINITY;
  const int calls = round_calls(quick);
  const double seconds = round_seconds(quick);
  for (int r = 0; r < rounds; ++r) {
    double default_ms = INFINITY;
    for (Contender& c : cs) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let other threads settle
      double ms = time_cold(c.call, slots, calls, seconds);
      c.best_ms = std::min(c.best_ms, ms);
      if (c.impl == "tcs default") default_ms = ms;
      if (r == 0) c.error = slots.error_of(c.call);
    }
    if (triad) triad_gbs = std::max(triad_gbs, triad->gbs(pool, quick));
    if (threads == 1) cli_ms = std::min(cli_ms, cli_median_ms(w, quick ? 10 : 30, seconds, default_ms));
  }
  auto grid_pick = std::find_if(cs.begin(), cs.end(), [](const Contender& c) { return c.impl == "tcs grid best"; });
  if (tuned_is_grid_pick && grid_pick != cs.end()) {
    Contender same = *grid_pick;
    same.impl = "tcs tuned";
    cs.push_back(same);
  }
  if (threads == 1) cs.push_back({"tcs run --repeat", "", nullptr, cli_ms, 0.0});
  for (const Contender& c : cs) {
    int on = c.impl == kOneThreadPickAgain ? 1 : threads;
    std::printf("RESULT\t%s\t%s\t%d\t%.4f\t%.3f\t%.2e\t%s\n", w.name.c_str(), c.impl.c_str(), on, c.best_ms,
                w.amount / (c.best_ms * 1e6), c.error, c.note.c_str());
  }
  if (triad) std::printf("STREAM\t%s\t%d\t%.3f\n", w.name.c_str(), threads, triad_gbs);
  std::fflush(stdout);
}

int child(int threads, int rounds, bool quick) {
  tcs::ThreadPool pool(threads);
  const std::vector<Workload> ws = selected_workloads();
  for (const Workload& w : ws) {
    std::fprintf(stderr, "  %dt: %s\n", threads, w.name.c_str());
    measure(w, threads, rounds, quick, pool);
  }
  return 0;
}

struct Row {
  std::string kernel, impl, note;
  std::map<int, double> fig;  // GFLOP/s or GB/s per thread count
  std::map<int, double> error;
  std::map<int, std::string> options;  // the option set's JSON per thread count, where one was chosen
};


// Tunes one kernel into the --tuned cache with the product's own command, for each
// thread count the benchmark runs, timed with cold caches as this benchmark times every
// contender (results are kept per thread count and per way of timing). The grid's hand
// sets are its starting options, as a user would hand theirs in: the search goes on from
// what is known to be good instead of rediscovering it.
void tune_first(const Workload& w, int trials) {
  std::vector<std::string> starts;
  for (const std::string& json : w.grid) {
    char path[] = "/tmp/tcs_bench_start_XXXXXX";
    int fd = ::mkstemp(path);
    if (fd < 0) continue;
    bool written = ::write(fd, json.data(), json.size()) == ssize_t(json.size());
    ::close(fd);
    if (written) starts.push_back(path);
    else ::unlink(path), std::fprintf(stderr, "cannot write %s: tuning without that start\n", path);
  }
  for (int threads : {1, 2}) {
    std::string cmd = "'" + std::string(TCS_CLI_BINARY) + "' tune '" + w.dir + "/" + w.file + "'";
    for (const auto& [name, v] : w.sizes) cmd += " --size " + name + "=" + std::to_string(v);
    for (const std::string& path : starts) cmd += " --start " + path;
    cmd += " --db '" + g_tuned + "' --threads " + std::to_string(threads) + " --trials " + std::to_string(trials) +
           " --time-limit 600 --cold 2>&1";
    std::fprintf(stderr, "tuning %s on %d thread(s) (at most %d trials, 10 minutes)...\n", w.name.c_str(), threads, trials);
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) break;
    char buf[4096];
    std::string last;
    while (std::fgets(buf, sizeof buf, p)) last = buf, std::fputs(buf, stderr);
    if (pclose(p) != 0) std::fprintf(stderr, "tuning %s failed\n", w.name.c_str());
    std::printf("Tuned %s, %dt: %s", w.name.c_str(), threads, last.c_str());
  }
  for (const std::string& path : starts) ::unlink(path.c_str());
}

int parent(const char* self, int rounds, bool quick, int tune_trials) {
  std::printf("Compile time of matmul.tc (median of %d):\n", quick ? 5 : 20);
  std::vector<CompileTiming> ct = measure_compile_times(quick ? 5 : 20);
  for (const CompileTiming& t : ct) std::printf("  %-42s %8.2f ms\n", t.what.c_str(), t.median_ms);
  std::fflush(stdout);

  const std::vector<Workload> ws = selected_workloads();
  if (ws.empty()) return std::fprintf(stderr, "bench_cpu: no kernel starts with '%s'\n", g_only.c_str()), 2;
  if (tune_trials > 0)
    for (const Workload& w : ws) tune_first(w, tune_trials);
  std::vector<Row> rows;
  std::vector<std::string> notes;
  std::map<std::pair<std::string, int>, double> triad;  // STREAM triad GB/s in a kernel's rounds, per thread count
  for (int threads : {1, 2}) {
    // Idle OpenMP threads (oneDNN's) sleep instead of spinning: on two cores a spinning
    // peer thread would take the core our pool's second thread needs in the next cell.
    std::string cmd = "OMP_WAIT_POLICY=PASSIVE OPENBLAS_NUM_THREADS=" + std::to_string(threads) + " OMP_NUM_THREADS=" + std::to_string(threads) +
                      " '" + self + "' --child --threads " + std::to_string(threads) + " --rounds " + std::to_string(rounds) +
                      (quick ? " --quick" : "") + (g_only.empty() ? "" : " --only '" + g_only + "'") +
                      (g_tuned.empty() ? "" : " --tuned '" + g_tuned + "'");
    std::fprintf(stderr, "running %d-thread cells...\n", threads);
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return std::perror("popen"), 2;
    char line[8192];
    while (std::fgets(line, sizeof line, p)) {
      std::istringstream in(line);
      std::string tag, kernel, impl, rest;
      std::getline(in, tag, '\t');
      std::getline(in, kernel, '\t');
      if (tag == "STREAM") {
        int th;
        in >> th >> triad[{kernel, th}];
        continue;
      }
      if (tag == "NOTE") {
        int th;
        in >> th;
        in.ignore(1);
        std::getline(in, rest);
        notes.push_back(kernel + ", " + std::to_string(th) + "t: " + rest);
        continue;
      }
      if (tag != "RESULT") continue;
      int th;
      double ms, fig, err;
      std::getline(in, impl, '\t');
      in >> th >> ms >> fig >> err;
      in.ignore(1);
      std::getline(in, rest);
      auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.kernel == kernel && r.impl == impl; });
      if (it == rows.end()) it = rows.insert(rows.end(), Row{kernel, impl, "", {}, {}, {}});
      it->fig[th] = fig;
      it->error[th] = err;
      if (!rest.empty()) {
        it->options[th] = rest;
        it->note += (it->note.empty() ? "" : "\n    ") + std::to_string(th) + "t: " + rest;
      }
    }
    if (int rc = pclose(p); rc != 0) return std::fprintf(stderr, "child for %d threads failed (%d)\n", threads, rc), 2;
    if (threads == 1) {  // the 1-thread picks, for the 2-thread child to time again
      std::string picks;
      for (const Row& r : rows)
        if (r.impl == "tcs grid best" && r.options.count(1)) picks += r.kernel + "\t" + r.options.at(1) + "\n";
      setenv(kOneThreadPicksVariable, picks.c_str(), 1);
    }
  }

  bool ok = true;
  for (const Workload& w : ws) {
    const char* unit = w.bytes ? "GB/s" : "GFLOP/s";
    std::printf("\n%-26s %-17s %10s %10s %10s\n", w.name.c_str(), "implementation", (std::string("1t ") + unit).c_str(),
                (std::string("2t ") + unit).c_str(), "max error");
    for (const Row& r : rows) {
      if (r.kernel != w.name) continue;
      double err = 0;
      for (auto [t, e] : r.error) err = std::max(err, e);
      auto cell = [&](int t) {
        char b[32] = "-";
        if (r.fig.count(t)) std::snprintf(b, sizeof b, "%.1f", r.fig.at(t));
        return std::string(b);
      };
      std::printf("%-26s %-17s %10s %10s %10.1e%s\n", "", r.impl.c_str(), cell(1).c_str(), cell(2).c_str(), err,
                  err < 1e-4 ? "" : "  WRONG");
      ok = ok && err < 1e-4;
    }
  }
  for (const Workload& w : ws)
    if (w.stream_goal > 0)
      std::printf("\n%-26s %-17s %10.1f %10.1f\n", ("memory: " + w.name.substr(0, w.name.find(' ')) + " rounds").c_str(),
                  "STREAM triad", triad[{w.name, 1}], triad[{w.name, 2}]);
  std::printf("\nOption sets picked by the grid (and found by the tuner):\n");
  for (const Row& r : rows)
    if (!r.note.empty()) std::printf("  %s, %s:\n    %s\n", r.kernel.c_str(), r.impl.c_str(), r.note.c_str());
  if (!notes.empty()) {
    std::printf("\nNotes:\n");
    for (const std::string& n : notes) std::printf("  %s\n", n.c_str());
  }

  auto fig = [&](const std::string& kernel, const std::string& impl, int t) {
    for (const Row& r : rows)
      if (r.kernel == kernel && r.impl == impl && r.fig.count(t)) return r.fig.at(t);
    return 0.0;
  };
  // The best library (every non-naive peer), or a named baseline ("naive g++", "oneDNN").
  auto baseline = [&](const Workload& w, const std::string& which, int t) {
    double best = 0;
    for (const bench::PeerSpec& p : w.peers)
      if (which.empty() ? !p.naive : p.name == which) best = std::max(best, fig(w.name, p.name, t));
    return best;
  };

  auto scaling = [&](const Workload& w) {
    double one = fig(w.name, kOneThreadPickAgain, 1);
    return one > 0 ? fig(w.name, "tcs grid best", 2) / one : NAN;
  };
  std::printf("\nRatios (lib: the best library at that thread count; grid: tcs grid best; def: tcs default;\n"
              "ours 2t/1t: the grid's 2-thread pick over its 1-thread pick, timed in the same rounds)\n");
  std::printf("%-26s %8s %8s %8s %8s %8s %8s %8s %9s\n", "kernel", "grid/lib", "grid/lib", "def/lib", "def/lib", "def/grid",
              "def/grid", "ours", "run/bench");
  std::printf("%-26s %8s %8s %8s %8s %8s %8s %8s %9s\n", "", "1t", "2t", "1t", "2t", "1t", "2t", "2t/1t", "1t");
  for (const Workload& w : ws) {
    auto r = [&](double a, double b) { return b > 0 ? a / b : 0.0; };
    std::printf("%-26s %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %9.2f\n", w.name.c_str(),
                r(fig(w.name, "tcs grid best", 1), baseline(w, "", 1)), r(fig(w.name, "tcs grid best", 2), baseline(w, "", 2)),
                r(fig(w.name, "tcs default", 1), baseline(w, "", 1)), r(fig(w.name, "tcs default", 2), baseline(w, "", 2)),
                r(fig(w.name, "tcs default", 1), fig(w.name, "tcs grid best", 1)),
                r(fig(w.name, "tcs default", 2), fig(w.name, "tcs grid best", 2)),
                scaling(w),
                r(fig(w.name, "tcs run --repeat", 1), fig(w.name, "tcs default", 1)));
  }

  struct Target {
    std::string what;
    double value, goal, upper = INFINITY;
  };
  auto compile_ms = [&](const std::string& what) {
    for (const CompileTiming& t : ct)
      if (t.what == what) return t.median_ms;
    return double(INFINITY);
  };
  std::vector<Target> targets;
  for (const Workload& w : ws) {
    std::string base = w.baseline.empty() ? "best library" : w.baseline;
    for (int t : {1, 2})
      if (baseline(w, w.baseline, t) > 0)  // naive baselines have no 2-thread figure
        targets.push_back({w.name + ", " + std::to_string(t) + "t: grid best / " + base,
                           fig(w.name, "tcs grid best", t) / baseline(w, w.baseline, t), w.goal});
  }
  for (const Workload& w : ws)
    if (w.stream_goal > 0)
      for (int t : {1, 2})
        targets.push_back({w.name + ", " + std::to_string(t) + "t: grid best / STREAM triad",
                           triad[{w.name, t}] > 0 ? fig(w.name, "tcs grid best", t) / triad[{w.name, t}] : NAN, w.stream_goal});
  if (!g_tuned.empty())
    for (const Workload& w : ws) {
      std::string base = w.baseline.empty() ? "best library" : w.baseline;
      for (int t : {1, 2}) {
        if (baseline(w, w.baseline, t) > 0)
          targets.push_back({w.name + ", " + std::to_string(t) + "t: tuned / " + base,
                             fig(w.name, "tcs tuned", t) / baseline(w, w.baseline, t), w.tuned_goal});
        targets.push_back({w.name + ", " + std::to_string(t) + "t: tuned / grid best",
                           fig(w.name, "tcs tuned", t) / fig(w.name, "tcs grid best", t), 1.0});
      }
    }
  for (const Workload& w : ws)
    for (int t : {1, 2})
      targets.push_back({w.name + ", " + std::to_string(t) + "t: default / grid best",
                         fig(w.name, "tcs default", t) / fig(w.name, "tcs grid best", t), 0.67});
  // Every kernel here has enough independent work for two threads. The grid's 2-thread
  // pick against its 1-thread pick, timed in the same rounds.
  for (const Workload& w : ws) {
    targets.push_back({w.name + ": ours 2t / 1t (grid picks)", scaling(w), 1.7});
    // A kernel held against the machine's bandwidth scales no further than memory does.
    // (Each figure from its own child's rounds, minutes apart.)
    if (w.stream_goal > 0 && triad[{w.name, 1}] > 0 && triad[{w.name, 2}] > 0)
      targets.push_back({"  (for scale) STREAM triad 2t / 1t, in " + w.name.substr(0, w.name.find(' ')) + "'s rounds",
                         triad[{w.name, 2}] / triad[{w.name, 1}], 0.0});
  }
  // The CLI's figure is the kernel's own time: within 10 % of the benchmark's, both ways.
  for (const Workload& w : ws)
    targets.push_back({w.name + ": run --repeat / bench (default, 1t)",
                       fig(w.name, "tcs run --repeat", 1) / fig(w.name, "tcs default", 1), 0.9, 1 / 0.9});
  if (std::any_of(ws.begin(), ws.end(), [](const Workload& w) { return w.name == "sgemm 1024^3"; })) {
    targets.push_back({"sgemm 1024^3, 1t: tcs default / naive g++ (mnk)",
                       fig("sgemm 1024^3", "tcs default", 1) / fig("sgemm 1024^3", "naive g++", 1), 5.0});
    // For scale: the loops interchanged by hand so g++ vectorises them (no goal).
    targets.push_back({"  (for scale) tcs default / naive g++ mkn",
                       fig("sgemm 1024^3", "tcs default", 1) / fig("sgemm 1024^3", "naive g++ mkn", 1), 0.0});
  }
  targets.push_back({"matmul compile (schedule+O3+JIT): 150 ms / median", 150.0 / compile_ms(kCompileKernel), 1.0});
  targets.push_back({"matmul schedule + C text: 30 ms / median", 30.0 / compile_ms(kCompileText), 1.0});
  // Issue 10: the keystroke budget holds at 1024^3 too.
  targets.push_back({"matmul 1024^3 schedule + C text: 30 ms / median", 30.0 / compile_ms(kCompileTextLarge), 1.0});

  std::printf("\n%-62s %8s %10s\n", "target", "ratio", "goal");
  for (const Target& t : targets) {
    if (t.goal == 0) {
      std::printf("%-62s %8.2f %10s\n", t.what.c_str(), t.value, "-");
      continue;
    }
    bool holds = t.value >= t.goal && t.value <= t.upper;  // NaN (a missing cell) misses
    ok = ok && holds;
    char goal[32];
    if (std::isfinite(t.upper)) std::snprintf(goal, sizeof goal, "%.2f-%.2f", t.goal, t.upper);
    else std::snprintf(goal, sizeof goal, "%.2f", t.goal);
    std::printf("%-62s %8.2f %10s  %s\n", t.what.c_str(), t.value, goal, holds ? "holds" : "MISSED");
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  bool is_child = false, quick = false, rounds_given = false;
  int threads = 1, rounds = 3, tune_trials = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--child") is_child = true;
    else if (a == "--quick") quick = true;
    else if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (a == "--rounds" && i + 1 < argc) rounds = std::max(1, std::atoi(argv[++i])), rounds_given = true;
    else if (a == "--only" && i + 1 < argc) g_only = argv[++i];
    else if (a == "--tuned" && i + 1 < argc) g_tuned = argv[++i];
    else if (a == "--tune" && i + 1 < argc) tune_trials = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: bench_cpu [--rounds N] [--quick] [--only NAME,...] [--tuned DB [--tune TRIALS]]\n");
      return 2;
    }
  }
  if (quick && !rounds_given) rounds = 1;
  if (is_child) return child(threads, rounds, quick);
  std::string self = "/proc/self/exe";
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) self.assign(buf, size_t(n));
  if (tune_trials > 0 && g_tuned.empty()) return std::fprintf(stderr, "bench_cpu: --tune needs --tuned DB\n"), 2;
  return parent(self.c_str(), rounds, quick, tune_trials);
}
