#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "cli/Commands.h"
#include "cli/KernelSetup.h"
#include "options/OptionsSchema.h"
#include "support/Json.h"
#include "tuner/BestOptions.h"
#include "tuner/Cache.h"

namespace tcs::cli {

static const char* kCacheHelp = R"(usage: tcstudio-cli cache list [--json]
       tcstudio-cli cache show KEY [--top N] [--json]
       tcstudio-cli cache best FILE.tc [--entry NAME] [--size NAME=INT ...]
       tcstudio-cli cache export [--output FILE.jsonl]
       tcstudio-cli cache import FILE.jsonl ...
       tcstudio-cli cache vacuum
       (each takes --db PATH; default ~/.local/share/tcstudio/cache.sqlite, under
       $XDG_DATA_HOME when that is set)

The tuning cache holds every candidate the tuner measured, per kernel, sizes and machine.

  list      one line per kernel and machine: its key, trials, failures and best time
  show KEY  one kernel (KEY or the start of it): its source, sessions and the --top N
            fastest candidates (default 5) with their options, then the failures
  best      the best options for a kernel and sizes on this machine, as JSON (what
            run, compile and export use with --best); exit 1 when nothing is tuned
  export    every record as JSON lines (stdout, or --output FILE), to share or merge
  import    merges exported lines by key: kernels, machines and options already present
            gain only the measurements they lack; a faster best replaces the one stored
  vacuum    compacts the file
)";

namespace {

std::string number(double v, const char* format = "%.4g") {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// Options as the fields that differ from the defaults: "tile=[32, 32] unroll=4".
std::string options_brief(const std::string& json) {
  auto o = mapping_options_read_json(json);
  if (!o) return json;
  MappingOptions defaults;
  std::string out;
  for (const OptionField& f : option_fields()) {
    std::string v = option_get(*o, f);
    if (v != option_get(defaults, f)) out += (out.empty() ? "" : " ") + f.name + "=" + v;
  }
  for (const StatementOptions& st : o->statements)
    for (const auto& [name, v] : st.fields) out += " " + st.statement + "." + name + "=" + v;
  return out.empty() ? "(all defaults)" : out;
}

void summary_json(JsonWriter& w, const tuner::WorkloadSummary& s) {
  w.field("key", s.workload.key);
  w.field("entry", s.workload.entry);
  w.field("sizes", s.workload.sizes);
  w.field("signature", s.workload.signature);
  w.field("target", s.target_description);
  w.field("candidates", s.candidates);
  w.field("trials", s.trials);
  w.field("failures", s.failures);
  if (s.best_ms) {
    w.field("best_ms", *s.best_ms);
    w.field("best_gflops", s.best_gflops);
  }
  w.field("last_measured", s.last_measured_at ? tuner::local_time_text(s.last_measured_at) : std::string());
}

int list(tuner::TuningCache& cache, bool as_json) {
  auto rows = cache.list();
  if (!rows) {
    std::cerr << "error: " << rows.error() << "\n";
    return kUserError;
  }
  if (as_json) {
    JsonWriter w;
    w.begin_array();
    for (const auto& s : *rows) {
      w.begin_object();
      summary_json(w, s);
      w.end_object();
    }
    w.end_array();
    std::cout << w.str() << "\n";
    return kSuccess;
  }
  if (rows->empty()) {
    std::cout << "the tuning cache " << cache.path() << " holds nothing yet\n";
    return kSuccess;
  }
  std::printf("%-16s  %-14s  %-24s %7s %6s %10s %9s  %s\n", "KEY", "ENTRY", "SIZES", "TRIALS", "FAILED", "BEST ms",
              "GFLOP/s", "MACHINE");
  for (const auto& s : *rows)
    std::printf("%-16s  %-14s  %-24s %7lld %6lld %10s %9s  %s\n", s.workload.key.c_str(), s.workload.entry.c_str(),
                s.workload.sizes.c_str(), (long long)s.trials, (long long)s.failures,
                s.best_ms ? number(*s.best_ms).c_str() : "-", s.best_ms ? number(s.best_gflops, "%.1f").c_str() : "-",
                s.target_description.c_str());
  std::fflush(stdout);
  return kSuccess;
}

int show(tuner::TuningCache& cache, const std::string& key, int top, bool as_json) {
  auto details = cache.show(key, top);
  if (!details) {
    std::cerr << "error: " << details.error() << "\n";
    return kUserError;
  }
  if (as_json) {
    JsonWriter w;
    w.begin_array();
    for (const auto& d : *details) {
      w.begin_object();
      summary_json(w, d.summary);
      w.field("source", d.summary.workload.source);
      w.key("sessions");
      w.begin_array();
      for (const auto& s : d.sessions) {
        w.begin_object();
        w.field("id", s.id);
        w.field("seed", int64_t(s.seed));
        w.field("status", s.status);
        w.field("trials", s.trials);
        w.field("started", tuner::local_time_text(s.started_at));
        w.field("settings", s.settings_json);
        w.end_object();
      }
      w.end_array();
      w.key("top");
      w.begin_array();
      for (const auto& c : d.top) {
        w.begin_object();
        w.field("id", c.id);
        w.field("origin", c.origin);
        w.field("measurements", c.measurements);
        if (c.median_ms) w.field("median_ms", *c.median_ms);
        w.field("last_status", c.last_status);
        if (!c.last_message.empty()) w.field("last_message", c.last_message);
        w.field("options", c.options_json);
        w.end_object();
      }
      w.end_array();
      w.end_object();
    }
    w.end_array();
    std::cout << w.str() << "\n";
    return kSuccess;
  }
  for (const auto& d : *details) {
    const auto& s = d.summary;
    std::cout << "workload " << s.workload.key << "  " << s.workload.entry << " (" << s.workload.sizes << ")\n"
              << "  " << s.workload.signature << "\n"
              << "  machine  " << s.target_description << "\n"
              << "  trials   " << s.trials << " (" << s.failures << " failed) of " << s.candidates << " candidates";
    if (s.best_ms) std::cout << "; best " << number(*s.best_ms) << " ms, " << number(s.best_gflops, "%.1f") << " GFLOP/s";
    std::cout << "\n  source   ";
    for (char c : s.workload.source) std::cout << c << (c == '\n' ? "           " : "");
    std::cout << "\n";
    if (!d.sessions.empty()) std::cout << "sessions\n";
    for (const auto& x : d.sessions)
      std::cout << "  #" << x.id << "  seed " << x.seed << "  " << x.status << "  " << x.trials << " trials  started "
                << tuner::local_time_text(x.started_at) << "\n";
    std::cout << "fastest candidates\n";
    int rank = 0;
    for (const auto& c : d.top) {
      ++rank;
      if (c.median_ms)
        std::cout << "  " << rank << ". " << number(*c.median_ms) << " ms  "
                  << number(s.workload.flops / (*c.median_ms * 1e6), "%.1f") << " GFLOP/s  " << c.origin << "  "
                  << options_brief(c.options_json) << "\n";
      else
        std::cout << "  " << rank << ". " << c.last_status << ": " << c.last_message << "  " << options_brief(c.options_json) << "\n";
    }
  }
  return kSuccess;
}

}  // namespace

int command_cache(const std::vector<std::string>& argv) {
  auto parsed = parse_command(argv,
                              {{"db", true},
                               {"json", false},
                               {"top", true},
                               {"output", true},
                               {"entry", true},
                               {"size", true, true}},
                              "cache", kCacheHelp);
  if (auto* code = std::get_if<int>(&parsed)) return *code;
  ParsedArgs args = std::get<ParsedArgs>(parsed);
  if (args.positional.empty()) {
    std::cerr << "tcstudio-cli cache: expected list, show, best, export, import or vacuum (see --help)\n";
    return kUsageError;
  }
  std::string sub = args.positional[0];
  args.positional.erase(args.positional.begin());
  std::string path = cache_path_from_args(args);
  auto usage = [&](const std::string& what) {
    std::cerr << "tcstudio-cli cache " << sub << ": " << what << " (see --help)\n";
    return kUsageError;
  };
  bool writes = sub == "import" || sub == "vacuum";
  if (sub == "best") {
    auto setup = kernel_setup(args, "cache best");
    if (auto* code = std::get_if<int>(&setup)) return *code;
    auto best = tuner::best_options(path, std::get<CliKernel>(setup), int(std::max(1u, std::thread::hardware_concurrency())));
    if (!best) {
      std::cerr << "error: " << best.error() << "\n";
      return kUserError;
    }
    std::cerr << "note: " << best->note << "\n";
    if (!best->record) return kUserError;
    std::cout << best->record->options_json << "\n";
    return kSuccess;
  }
  if (sub != "list" && sub != "show" && sub != "export" && sub != "import" && sub != "vacuum")
    return usage("unknown subcommand '" + sub + "'");
  if (sub == "show" && args.positional.size() != 1) return usage("expected one KEY");
  if (sub == "import" && args.positional.empty()) return usage("expected one or more FILE.jsonl");
  if ((sub == "list" || sub == "export" || sub == "vacuum") && !args.positional.empty())
    return usage("unexpected '" + args.positional[0] + "'");
  int top = 5;
  if (auto t = args.get("top")) {
    try {
      top = std::stoi(*t);
    } catch (const std::exception&) {
      top = 0;
    }
    if (top < 1 || top > 100000) return usage("--top takes a count from 1, not '" + *t + "'");
  }
  if (sub == "list" && !std::filesystem::exists(path)) {
    std::cout << "there is no tuning cache at " << path << " yet: 'tcstudio-cli tune' creates it\n";
    return kSuccess;
  }
  auto cache = tuner::TuningCache::open(path, {.write = writes});
  if (!cache) {
    std::cerr << "error: " << cache.error() << "\n";
    return kUserError;
  }
  tuner::TuningCache& c = **cache;
  if (sub == "list") return list(c, args.has("json"));
  if (sub == "show") return show(c, args.positional[0], top, args.has("json"));
  if (sub == "export") {
    std::ofstream file;
    if (auto out = args.get("output")) {
      file.open(*out, std::ios::binary);
      if (!file) {
        std::cerr << "error: cannot write '" << *out << "'\n";
        return kUserError;
      }
    }
    auto n = c.export_lines(file.is_open() ? file : std::cout);
    if (!n) {
      std::cerr << "error: " << n.error() << "\n";
      return kUserError;
    }
    std::cerr << "exported " << *n << " candidates from " << path << "\n";
    return kSuccess;
  }
  if (sub == "import") {
    for (const std::string& name : args.positional) {
      std::ifstream in(name, std::ios::binary);
      if (!in) {
        std::cerr << "error: cannot read '" << name << "'\n";
        return kUserError;
      }
      auto r = c.import_lines(in);
      if (!r) {
        std::cerr << "error: " << name << ": " << r.error() << "\n";
        return kUserError;
      }
      std::cout << name << ": " << r->lines << " lines, " << r->candidates_added << " new candidates, "
                << r->measurements_added << " new measurements, " << r->duplicates << " already present\n";
      for (const std::string& s : r->skipped) std::cerr << "  skipped " << name << " " << s << "\n";
    }
    return kSuccess;
  }
  if (Status s = c.vacuum(); !s) {
    std::cerr << "error: " << s.error() << "\n";
    return kUserError;
  }
  std::cout << "vacuumed " << path << "\n";
  return kSuccess;
}

}  // namespace tcs::cli
