#pragma once
// The compiler on a worker thread. The window submits a job after each (debounced) edit;
// the newest job wins: submitting cancels the running one and replaces any job still
// waiting, and results older than the newest submitted job are dropped before they reach
// a widget. Results are plain data, delivered on the GUI thread through queued calls.
#include <QObject>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "Compiler.h"
#include "lang/Frontend.h"

namespace tcs {

struct CompileJob {
  uint64_t id = 0;  // set by submit()
  std::string file_name, text;
  std::string entry;         // empty: the first def
  SizeMap sizes;             // the sizes panel's values; missing ones come from the header
  std::string options_json;  // empty: the preset
  std::string preset = "default";
  bool emit_llvm = true, emit_asm = true;
  bool run = false;  // JIT-compile, run on random inputs, time, and check against the interpreter
  uint64_t seed = 0;
  // How a run is timed, as the CLI's run takes them: threads for parallel loops (0: every
  // core), and cold caches (--cold: copies of the buffers rotated, as the benchmark times).
  int threads = 0;
  bool cold_caches = false;
};

// What a run with check measured.
struct RunReport {
  double median_ms = 0, gflops = 0;
  int repeats = 0, threads = 1;
  bool cold_caches = false;
  double worst_error = 0;
  bool ok = true;
  bool checked = true;  // false: too large for the interpreter, timed only (note says why)
  std::string note;
  std::vector<std::string> lines;  // per output: "O: ok, max error 1e-7 (bound 1e-4)"
};

struct CompileOutcome {
  uint64_t id = 0;
  bool final = false;  // false: schedules and C are in, LLVM IR and assembly still compiling
  std::shared_ptr<const CheckedFile> checked;
  int entry = -1;           // index into checked->defs; -1 when there is no usable def
  SizeMap header_sizes;     // from the entry's "# sizes:" line
  std::optional<DefShapes> shapes;
  std::string options_json;  // the options the compiler used
  std::optional<Error> error;  // what stopped compilation after the front end, if anything
  std::shared_ptr<const CompileResult> result;
  std::vector<PhaseTime> timings;  // "check", then the compiler's phases
  std::optional<RunReport> run;
  bool run_requested = false;

  const SemaDef* def() const { return entry >= 0 ? &checked->defs[size_t(entry)] : nullptr; }
  bool failed(ErrorKind kind) const { return error && error->kind == kind; }
  std::string error_message() const { return error ? error->message : std::string(); }
};

class CompileService : public QObject {
  Q_OBJECT
 public:
  explicit CompileService(QObject* parent = nullptr);
  ~CompileService() override;

  // Queues `job` (replacing a waiting one, cancelling a running one); returns its id.
  uint64_t submit(CompileJob job);
  uint64_t latest() const { return latest_; }
  // Stops the newest job: its result comes back at once as a Cancelled error.
  void cancel();
  bool busy() const { return busy_; }

 signals:
  // Emitted on the GUI thread for the newest job only: once with the C text and
  // schedules (final = false, when LLVM phases follow), once when the job is done.
  void compiled(std::shared_ptr<const CompileOutcome> outcome);
  // What the newest job is doing now ("compiling", "timing: 12 calls, 240 ms"), on the GUI thread.
  void progress(const QString& stage);

 private:
  void worker_loop();
  void execute(const CompileJob& job, const std::atomic<bool>& cancel);
  void deliver(std::shared_ptr<CompileOutcome> outcome);
  void report_progress(uint64_t id, const QString& stage);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<CompileJob> pending_;
  bool pending_cancelled_ = false;
  std::shared_ptr<std::atomic<bool>> running_cancel_;
  bool stopping_ = false;
  uint64_t latest_ = 0;  // GUI thread only
  std::chrono::steady_clock::time_point last_progress_;  // worker thread only
  bool busy_ = false;    // GUI thread only
  std::thread worker_;
};

// The source of a result without the entry's saved "# options:" line: what the kernel is,
// apart from the options (which the result holds as options_json).
std::string source_without_saved_options(const CompileOutcome& o);

// What differs between the kernels two results describe, the first difference found:
// "the file", "the source", "the entry", "the sizes", "the options"; empty when they are the
// same kernel. A view holding an older result says it is stale with this.
std::string kernel_change(const CompileOutcome& shown, const CompileOutcome& now);

// What Problems lists for a result: the front end's diagnostics and, when compiling
// stopped after it (sizes, options, a failed run), that error too, placed on the def's
// name, so no problem is shown only in the status bar; then the compiler's notes, there
// too (Severity::Note, which the editor does not underline).
std::vector<Diagnostic> outcome_problems(const CompileOutcome& o);

// The front end, entry, sizes and options of a job (through the compiler's one kernel
// set-up): what every later stage needs, or the first problem that stops it (in
// CompileOutcome::error; a def with errors is a Source error). Exposed for tests.
std::shared_ptr<CompileOutcome> prepare_outcome(const CompileJob& job, KernelSetup* setup, MappingOptions* options);

}  // namespace tcs
