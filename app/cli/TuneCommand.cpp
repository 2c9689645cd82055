#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cstdio>
#include <iostream>

#include "cli/Commands.h"
#include "cli/KernelSetup.h"
#include "lang/Diagnostic.h"
#include "support/Json.h"
#include "tuner/Tuner.h"
#include "tuner/Worker.h"
#include "tuner/WorkerProcess.h"

#ifndef TCS_VERSION
#define TCS_VERSION "0.0.0"
#endif

namespace tcs::cli {

static const char* kTuneHelp = R"(usage: tcstudio-cli tune FILE.tc [--entry NAME] [--size NAME=INT ...]
                        [--size-set "NAME=INT ..." ...] [--db PATH]
                        [--trials N] [--time-limit SEC] [--seed S] [--batch N]
                        [--threads N] [--timeout SEC] [--patience ROUNDS] [--cold]
                        [--no-overlap] [--start FILE.json ...] [--json]

Searches mapping options for a kernel at its sizes on this machine and keeps every
measurement in the tuning cache (--db PATH, default ~/.local/share/tcstudio/cache.sqlite).
Without --entry every def of the file is tuned; each --size-set adds a set of sizes
(--size applies to all). Several kernels share the budget: one round each, then each
round goes where the time is expected to fall fastest.
Candidates run in a child process (with half of this machine's memory at most): one that
crashes, hangs, runs out of memory or computes a wrong result costs one trial. Tuning
the same kernel again resumes: nothing measured is measured twice. Ctrl-C stops after
the candidates already sent to the child (one per core and one more) and keeps
everything measured.

  --trials N        new measurements in this session, all kernels together (default 200)
  --time-limit SEC  wall time of the session (default 600)
  --seed S          the search's seed (default 0; recorded with the session)
  --batch N         candidates per round, stored together (default 16)
  --threads N       threads of each candidate (default: all cores)
  --timeout SEC     per candidate: compile, check and time (default 20)
  --patience ROUNDS stop a kernel after this many rounds in a row without a 1 % gain
                    (default 8; 0: never, so only --trials and --time-limit stop it)
  --cold            time every candidate with cold caches (each call on its own copy of
                    the buffers, over 64 MiB), as run --repeat --cold and the benchmarks do;
                    kept apart from warm results, and run --best --cold prefers them
  --no-overlap      compile one candidate at a time (by default candidates are compiled
                    and checked on every core at once, between timings; each is timed alone)
  --start FILE.json options to start from (as --options takes them; repeatable): measured
                    first, before the presets, unless the cache has measured their program;
                    tried on every kernel tuned (use --entry for a file of several defs)
  --json            the result as JSON on stdout instead of the summary
Then: tcstudio-cli run FILE.tc --best (and compile, export) use the winner.
)";

namespace {

std::atomic<bool> g_cancel{false};

void on_interrupt(int) { g_cancel = true; }

std::string clock_text(double s) {
  int t = int(s + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%d:%02d", t / 60, t % 60);
  return buf;
}

std::string progress_text(const tuner::TuneProgress& p, int budget) {
  char buf[256];
  std::string best = p.best_ms ? std::to_string(*p.best_ms).substr(0, 7) + " ms (" + std::to_string(int(p.best_gflops + 0.5)) + " GFLOP/s)"
                               : std::string("-");
  std::snprintf(buf, sizeof buf, "%d/%d trials, %d failed, best %s, %s elapsed, ETA %s", p.session_trials, budget, p.failures,
                best.c_str(), clock_text(p.elapsed_s).c_str(), clock_text(p.eta_s).c_str());
  std::string line = buf;
  if (p.model_samples > 0) {
    std::snprintf(buf, sizeof buf, ", model: %d samples, rank %.2f held out, %.2f chosen", p.model_samples, p.model_rank,
                  p.model_online_rank);
    line += buf;
  }
  return line;
}

template <class T>
bool parse_number(const std::string& s, T& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// "M=1 N=2" as " --size M=1 --size N=2".
std::string size_flags(const std::string& sizes) {
  std::string out, item;
  for (char c : sizes + " ")
    if (c == ' ') {
      if (!item.empty()) out += " --size " + item, item.clear();
    } else {
      item += c;
    }
  return out;
}

// The kernels to tune: every def (or --entry's) at every --size-set, --size on top.
int tune_setups(const ParsedArgs& args, std::vector<KernelSetup>& out) {
  if (args.positional.size() != 1) {
    std::cerr << "tcstudio-cli tune: expected one FILE.tc (see --help)\n";
    return kUsageError;
  }
  auto common = parse_sizes(args.all("size"), "tune", "--size");
  if (!common) return kUsageError;
  std::vector<SizeMap> sets;
  for (const std::string& set : args.all("size-set")) {
    std::vector<std::string> items;
    std::string item;
    for (char c : set + " ")
      if (c == ' ' || c == ',') {
        if (!item.empty()) items.push_back(item), item.clear();
      } else {
        item += c;
      }
    auto sizes = parse_sizes(items, "tune", "--size-set");
    if (!sizes) return kUsageError;
    sets.push_back(*sizes);
  }
  if (sets.empty()) sets.emplace_back();
  auto checked = checked_file(args.positional[0]);
  if (auto* code = std::get_if<int>(&checked)) return *code;
  std::shared_ptr<const CheckedFile> file = std::get<std::shared_ptr<const CheckedFile>>(checked);
  std::vector<const SemaDef*> defs;
  if (auto entry = args.get("entry")) {
    auto def = select_entry(*file, *entry);
    if (!def) {
      std::cerr << "error: " << def.error() << "\n";
      return kUserError;
    }
    defs.push_back(*def);
  } else {
    for (const SemaDef& d : file->defs) defs.push_back(&d);
  }
  for (const SemaDef* def : defs)
    for (const SizeMap& set : sets) {
      KernelSpec spec;
      spec.entry = def->name;
      // A size the def does not have belongs to another def of the file.
      for (const SizeMap* from : {&set, static_cast<const SizeMap*>(&*common)})
        for (const auto& [n, v] : *from)
          if (def->find_size_param(n) >= 0) spec.sizes[n] = v;
      auto k = tcs::kernel_setup(file, spec);
      if (!k) {
        std::cerr << "error: " << def->name << ": " << k.error() << "\n";
        return kUserError;
      }
      out.push_back(std::move(*k));
    }
  return kSuccess;
}

}  // namespace

int command_worker(const std::vector<std::string>& argv) {
  int memory_mb = 0;
  if (argv.size() == 2 && argv[0] == "--memory-mb" && parse_number(argv[1], memory_mb)) return tuner::worker_main(memory_mb);
  if (!argv.empty()) {
    std::cerr << "usage: tcstudio-cli worker [--memory-mb N]   (the tuner's measuring process: JSON lines on stdin)\n";
    return kUsageError;
  }
  return tuner::worker_main(0);
}

int command_tune(const std::vector<std::string>& argv) {
  auto parsed = parse_command(argv,
                              {{"entry", true},
                               {"size", true, true},
                               {"size-set", true, true},
                               {"db", true},
                               {"trials", true},
                               {"time-limit", true},
                               {"seed", true},
                               {"batch", true},
                               {"threads", true},
                               {"timeout", true},
                               {"patience", true},
                               {"cold", false},
                               {"no-overlap", false},
                               {"start", true, true},
                               {"json", false}},
                              "tune", kTuneHelp);
  if (auto* code = std::get_if<int>(&parsed)) return *code;
  const ParsedArgs& args = std::get<ParsedArgs>(parsed);
  tuner::TuneSettings s;
  auto integer = [&](const char* name, int& out, int lo, int hi) {
    auto v = args.get(name);
    if (!v) return true;
    if (parse_number(*v, out) && out >= lo && out <= hi) return true;
    std::cerr << "tcstudio-cli tune: --" << name << " takes a whole number from " << lo << " to " << hi << ", not '" << *v << "'\n";
    return false;
  };
  int time_limit = 600, timeout = 20;
  if (!integer("trials", s.trials, 1, 1000000) || !integer("time-limit", time_limit, 1, 7 * 24 * 3600) ||
      !integer("batch", s.batch, 1, 1024) || !integer("threads", s.threads, 1, 1024) || !integer("timeout", timeout, 1, 3600) ||
      !integer("patience", s.patience_rounds, 0, 1000000))
    return kUsageError;
  s.time_limit_s = time_limit;
  s.timeout_s = timeout;
  s.overlap = !args.has("no-overlap");
  s.cold = args.has("cold");
  if (auto v = args.get("seed"); v && !parse_number(*v, s.seed)) {
    std::cerr << "tcstudio-cli tune: --seed takes an unsigned integer, not '" << *v << "'\n";
    return kUsageError;
  }
  for (const std::string& file : args.all("start")) {
    auto o = options_from_file(file);
    if (auto* code = std::get_if<int>(&o)) return *code;
    s.start.push_back(std::get<MappingOptions>(o));
  }
  std::vector<KernelSetup> kernels;
  if (int code = tune_setups(args, kernels); code != kSuccess) return code;
  std::string path = cache_path_from_args(args);
  auto cache = tuner::TuningCache::open(path);
  if (!cache) {
    std::cerr << "error: " << cache.error() << "\n";
    return kUserError;
  }
  // The worker may use half of this machine's memory: a candidate that wants more fails
  // as out-of-memory instead of pushing the machine into swap.
  long long half_mb = (long long)(::sysconf(_SC_PHYS_PAGES) / 2) * ::sysconf(_SC_PAGE_SIZE) / (1 << 20);
  s.worker_command = {tuner::own_executable(), "worker", "--memory-mb", std::to_string(std::max(1024LL, half_mb))};
  s.app_version = TCS_VERSION;

  bool tty = ::isatty(STDERR_FILENO);
  std::vector<tuner::Workload> workloads;
  std::vector<const KernelSetup*> setups;
  for (const KernelSetup& k : kernels) workloads.push_back(tuner::workload_of(k)), setups.push_back(&k);
  auto name = [&](size_t i) { return workloads[i].entry + " (" + workloads[i].sizes + ")"; };
  std::cerr << "tuning";
  for (size_t i = 0; i < workloads.size(); ++i) std::cerr << (i ? ", " : " ") << name(i);
  std::cerr << " into " << path << "\n";
  auto on_progress = [&](size_t task, const tuner::TuneProgress& p) {
    std::string who = workloads.size() > 1 ? workloads[task].entry + ": " : std::string();
    if (tty) {
      int width = 24, filled = int(width * double(p.session_trials) / s.trials);
      std::cerr << "\r\033[K[" << std::string(size_t(filled), '#') << std::string(size_t(width - filled), '.') << "] " << who
                << progress_text(p, s.trials) << std::flush;
    } else if (p.session_trials % s.batch == 0) {
      std::cerr << who << progress_text(p, s.trials) << "\n";
    }
  };
  g_cancel = false;
  struct sigaction sa {}, old_int {}, old_term {};
  sa.sa_handler = on_interrupt;
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);
  auto results = tuner::tune_tasks(**cache, setups, s, on_progress, &g_cancel);
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  if (tty) std::cerr << "\n";
  if (!results) {
    std::cerr << "error: " << results.error() << "\n";
    return kUserError;
  }
  JsonWriter j;
  if (args.has("json")) j.begin_array();
  for (size_t i = 0; i < results->size(); ++i) {
    const tuner::TuneResult& r = (*results)[i];
    const tuner::TuneProgress& p = r.progress;
    const tuner::Workload& w = workloads[i];
    if (args.has("json")) {
      j.begin_object();
      j.field("key", w.key);
      j.field("entry", w.entry);
      j.field("sizes", w.sizes);
      j.field("session", r.session);
      j.field("trials", p.trials);
      j.field("failures", p.failures);
      j.field("rejected", p.rejected);
      j.field("same_program", p.same_program);
      j.field("already_measured", p.known);
      j.field("stopped", r.stopped_because);
      j.field("chosen", r.chosen);
      j.field("elapsed_s", p.elapsed_s);
      j.field("model_samples", p.model_samples);
      j.field("model_rank_correlation", p.model_rank);
      j.field("model_rank_correlation_chosen", p.model_online_rank);
      j.field("host_pace", p.pace);
      if (r.best) {
        j.field("best_ms", r.best->median_ms);
        j.field("best_gflops", r.best->gflops);
        j.field("options", r.best->options_json);
      }
      j.end_object();
      continue;
    }
    std::cout << "session " << r.session << " of " << name(i) << " (key " << w.key << "): " << p.trials << " trials ("
              << p.failures << " failed, " << p.known << " measured before), stopped: " << r.stopped_because << ", "
              << clock_text(p.elapsed_s) << "\n";
    if (p.model_samples > 0)
      std::cout << "  cost model: trained on " << p.model_samples << " samples; rank correlation " << p.model_rank
                << " on held-out samples (five folds), " << p.model_online_rank << " on the candidates it chose; the host's pace at the end "
                << p.pace << " (the trials' times are learned over it)\n";
    if (r.best)
      std::cout << "  best " << r.best->median_ms << " ms, " << r.best->gflops << " GFLOP/s over " << r.best->verified_repeats
                << (s.cold ? " runs with cold caches" : " runs") << "; use it with: tcstudio-cli run " << args.positional[0]
                << " --entry " << w.entry << size_flags(w.sizes) << (s.cold ? " --best --repeat 100 --cold" : " --best") << "\n";
    if (r.best && !r.chosen.empty()) std::cout << "  chosen: " << r.chosen << "\n";
    else
      std::cout << "  no candidate ran correctly; see 'tcstudio-cli cache show " << w.key << "'\n";
  }
  if (args.has("json")) {
    j.end_array();
    std::cout << j.str() << "\n";
  }
  return kSuccess;
}

}  // namespace tcs::cli
