#include "views/service/CompileService.h"

#include <QMetaObject>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "kernel/Measure.h"
#include "runtime/RandomInputs.h"

namespace tcs {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// The interpreter is a tree walker (about 50 ns per operation): above this a check would
// keep the worker busy for more than a few seconds, so larger kernels are timed only.
constexpr double kMaxCheckedFlops = 1e8;

// Runs the compiled kernel on seeded random inputs, checks every output against the
// interpreter (when it is small enough) and times it (at least 3 runs and 0.2 s, at most
// 100 runs) with the compiler's one measurement routine, telling `progress` as it goes.
Expected<RunReport> run_kernel(const Kernel& kernel, uint64_t seed, bool cold_caches, const std::atomic<bool>& cancel,
                               const std::function<void(const QString&)>& progress) {
  auto inputs = random_inputs(kernel.def(), kernel.shapes(), seed);
  if (!inputs) return inputs.failure();
  double flops = kernel_flops(kernel.def(), kernel.shapes());
  MeasureRequest request;
  request.plan = TimingPlan{.warmup_calls = 1, .min_calls = 3, .min_total_ms = 200, .max_calls = 100, .cancel = &cancel};
  request.plan.on_call = [&](size_t calls, double ms) {
    progress(QStringLiteral("timing: %1 calls, %2 ms").arg(calls).arg(ms, 0, 'f', 0));
  };
  request.on_stage = [&](const char* stage) { progress(QString::fromLatin1(stage)); };
  request.check = flops <= kMaxCheckedFlops;
  request.cold_caches = cold_caches;
  auto m = measure_kernel(kernel, *inputs, request);
  if (!m) return m.failure();
  RunReport report;
  report.checked = m->checked;
  if (!m->checked)
    report.note = "not checked: " + number(flops) + " operations are too many for the reference interpreter (at most " +
                  number(kMaxCheckedFlops) + "); lower the sizes to check the results";
  report.threads = kernel.threads();
  report.cold_caches = cold_caches;
  report.repeats = int(m->timing.ms.size());
  report.median_ms = m->timing.median_ms;
  report.gflops = m->gflops;
  report.worst_error = m->max_error;
  report.ok = m->check_ok;
  for (const TensorComparison& c : m->comparisons)
    report.lines.push_back(c.ok ? c.name + ": ok, max error " + number(c.max_error) + " (bound " + number(c.bound) + ")"
                                : c.problem);
  return report;
}

}  // namespace

std::string source_without_saved_options(const CompileOutcome& o) {
  std::string text = o.checked->file.text();
  if (const SemaDef* def = o.def()) {
    OptionsHeader header = options_header(text, def->ast->range.begin);
    if (header.found) text.erase(header.begin, header.end - header.begin + (header.end < text.size()));  // and its newline
  }
  return text;
}

std::string kernel_change(const CompileOutcome& shown, const CompileOutcome& now) {
  if (shown.checked->file.name() != now.checked->file.name()) return "the file";
  if (source_without_saved_options(shown) != source_without_saved_options(now)) return "the source";
  const SemaDef *a = shown.def(), *b = now.def();
  if (!a || !b || a->name != b->name) return "the entry";
  if (!shown.shapes || !now.shapes || shown.shapes->sizes != now.shapes->sizes) return "the sizes";
  if (shown.options_json != now.options_json) return "the options";
  return {};
}

std::vector<Diagnostic> outcome_problems(const CompileOutcome& o) {
  std::vector<Diagnostic> out = o.checked->diagnostics;
  if (o.error && !o.failed(ErrorKind::Source) && !o.failed(ErrorKind::Cancelled) && o.def()) {
    Diagnostic d;
    std::string kind = std::string(error_kind_name(o.error->kind)) + ": ";
    d.message = o.error->message.rfind(kind, 0) == 0 ? o.error->message : kind + o.error->message;
    d.range = o.def()->ast->name_range;
    out.push_back(std::move(d));
  }
  // What the compiler said of the options and the model (a straddling register tile, a
  // loop order that fits no band, a subscript it cannot bound): notes on the def's name.
  if (o.result && o.def())
    for (const std::string& n : o.result->lowering.model.notes)
      out.push_back(Diagnostic{Severity::Note, "compiler: " + n, o.def()->ast->name_range, {}});
  return out;
}

std::shared_ptr<CompileOutcome> prepare_outcome(const CompileJob& job, KernelSetup* setup, MappingOptions* options) {
  auto out = std::make_shared<CompileOutcome>();
  out->id = job.id;
  out->run_requested = job.run;
  auto t0 = Clock::now();
  std::shared_ptr<CheckedFile> checked = check_source(job.file_name, job.text);
  out->timings.push_back({"check", ms_since(t0)});
  out->checked = checked;
  if (checked->defs.empty()) return out;
  out->entry = 0;
  if (!job.entry.empty()) {
    const SemaDef* d = checked->find_def(job.entry);
    out->entry = d ? int(d - checked->defs.data()) : 0;
  }
  const SemaDef& def = checked->defs[size_t(out->entry)];
  out->header_sizes = sizes_from_header(job.text, def.ast->range.begin);
  if (!def.ok || checked->has_errors()) {
    out->error = Error{ErrorKind::Source, "the source has errors"};
    return out;
  }
  // The sizes table may hold sizes of other defs: pass on this def's only.
  KernelSpec spec{def.name, {}, {}};
  for (const std::string& p : def.size_params)
    if (auto it = job.sizes.find(p); it != job.sizes.end()) spec.sizes[p] = it->second;
  auto k = kernel_setup(checked, spec);
  if (!k) {
    out->error = k.failure();
    return out;
  }
  out->shapes = k->shapes;
  auto opts = kernel_options(def, OptionsChoice{job.preset, job.options_json}, &k->shapes);
  if (!opts) {
    out->error = opts.failure();
    return out;
  }
  out->options_json = mapping_options_to_json(*opts);
  *options = std::move(*opts);
  *setup = std::move(*k);
  return out;
}

CompileService::CompileService(QObject* parent) : QObject(parent) {
  worker_ = std::thread([this] { worker_loop(); });
}

CompileService::~CompileService() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    pending_.reset();
    if (running_cancel_) *running_cancel_ = true;
  }
  wake_.notify_all();
  worker_.join();
}

uint64_t CompileService::submit(CompileJob job) {
  job.id = ++latest_;
  busy_ = true;
  {
    std::lock_guard lock(mutex_);
    pending_ = std::move(job);
    pending_cancelled_ = false;
    if (running_cancel_) *running_cancel_ = true;
  }
  wake_.notify_one();
  return latest_;
}

void CompileService::worker_loop() {
  for (;;) {
    CompileJob job;
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || pending_; });
      if (stopping_) return;
      job = std::move(*pending_);
      pending_.reset();
      *cancel = pending_cancelled_;
      running_cancel_ = cancel;
    }
    execute(job, *cancel);
    std::lock_guard lock(mutex_);
    running_cancel_.reset();
  }
}

void CompileService::execute(const CompileJob& job, const std::atomic<bool>& cancel) {
  KernelSetup setup;
  MappingOptions options;
  std::shared_ptr<CompileOutcome> out = prepare_outcome(job, &setup, &options);
  if (cancel && !out->error) out->error = Error{ErrorKind::Cancelled, "cancelled"};
  if (!out->shapes || out->error) {
    out->final = true;
    deliver(out);
    return;
  }
  auto progress = [this, id = job.id](const QString& stage) { report_progress(id, stage); };
  progress(job.run ? QStringLiteral("compiling") : QString());
  CodegenChoice choice{"cpu", {"c"}, job.run};
  if (job.emit_llvm) choice.text_kinds.push_back("llvm");
  if (job.emit_asm) choice.text_kinds.push_back("asm");
  CompileHooks hooks;
  hooks.cancel = &cancel;
  if (job.emit_llvm || job.emit_asm) {
    hooks.early = [&](const CompileResult& early) {
      auto partial = std::make_shared<CompileOutcome>(*out);
      partial->result = std::make_shared<CompileResult>(early);
      partial->timings.insert(partial->timings.end(), early.timings.begin(), early.timings.end());
      deliver(partial);
    };
  }
  auto compiled = compile_kernel(setup, options, choice, hooks);
  if (!compiled) {
    out->error = compiled.failure();
  } else {
    out->timings.insert(out->timings.end(), compiled->timings.begin(), compiled->timings.end());
    out->result = std::make_shared<CompileResult>(std::move(*compiled));
    if (job.run && cancel) {
      out->error = Error{ErrorKind::Cancelled, "run cancelled"};
    } else if (job.run) {
      auto t0 = Clock::now();
      if (job.threads > 0) out->result->kernel->set_threads(job.threads);
      auto report = run_kernel(*out->result->kernel, job.seed, job.cold_caches, cancel, progress);
      out->timings.push_back({"run", ms_since(t0)});
      if (report) out->run = std::move(*report);
      else out->error = report.failure();
    }
  }
  out->final = true;
  deliver(out);
}

void CompileService::cancel() {
  std::lock_guard lock(mutex_);
  if (pending_) pending_cancelled_ = true;  // it still reports back, as cancelled
  if (running_cancel_) *running_cancel_ = true;
}

// At most one progress line every 50 ms reaches the GUI; stale jobs' lines are dropped.
void CompileService::report_progress(uint64_t id, const QString& stage) {
  auto now = Clock::now();
  bool timing_line = stage.startsWith(QLatin1String("timing:"));
  if (timing_line && now - last_progress_ < std::chrono::milliseconds(50)) return;
  last_progress_ = now;
  QMetaObject::invokeMethod(
      this,
      [this, id, stage] {
        if (id == latest_) emit progress(stage);
      },
      Qt::QueuedConnection);
}

void CompileService::deliver(std::shared_ptr<CompileOutcome> outcome) {
  // Queued to this object: runs on the GUI thread, and is discarded if the service is gone.
  QMetaObject::invokeMethod(
      this,
      [this, outcome] {
        if (outcome->id < latest_) return;  // a newer job was submitted: stale
        if (outcome->final) busy_ = false;
        emit compiled(outcome);
      },
      Qt::QueuedConnection);
}

}  // namespace tcs
