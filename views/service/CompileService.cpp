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

// The interpreter is a tree walker (about 50 ns per operation): above this a run with
// check would keep the worker busy for more than a few seconds.
constexpr double kMaxCheckedFlops = 1e8;

// Runs the compiled kernel on seeded random inputs, checks every output against the
// interpreter and times it (at least 3 runs and 0.2 s, at most 100 runs) with the
// compiler's one measurement routine.
Expected<RunReport> run_with_check(const Kernel& kernel, uint64_t seed, const std::atomic<bool>& cancel) {
  auto inputs = random_inputs(kernel.def(), kernel.shapes(), seed);
  if (!inputs) return inputs.failure();
  MeasureRequest request;
  request.plan = TimingPlan{.warmup_calls = 1, .min_calls = 3, .min_total_ms = 200, .max_calls = 100, .cancel = &cancel};
  request.check = true;
  auto m = measure_kernel(kernel, *inputs, request);
  if (!m) return m.failure();
  RunReport report;
  report.threads = kernel.threads();
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

std::shared_ptr<CompileOutcome> prepare_outcome(const CompileJob& job, KernelSetup* setup, MappingOptions* options) {
  auto out = std::make_shared<CompileOutcome>();
  out->id = job.id;
  out->run_requested = job.run;
  auto t0 = Clock::now();
  std::shared_ptr<CheckedFile> checked = check_source(job.file_name, job.text);
  out->timings.push_back({"check", ms_since(t0)});
  out->checked = checked;
  out->header_sizes = sizes_from_header(job.text);
  if (checked->defs.empty()) return out;
  out->entry = 0;
  if (!job.entry.empty()) {
    const SemaDef* d = checked->find_def(job.entry);
    out->entry = d ? int(d - checked->defs.data()) : 0;
  }
  const SemaDef& def = checked->defs[size_t(out->entry)];
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
  auto opts = kernel_options(def, OptionsChoice{job.preset, job.options_json});
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
  if (!out->shapes || out->error || cancel) {
    out->final = true;
    deliver(out);
    return;
  }
  const SemaDef& def = *out->def();
  if (double flops = kernel_flops(def, *out->shapes); job.run && flops > kMaxCheckedFlops) {
    out->error = Error{ErrorKind::Sizes, "run with check: " + number(flops) +
                                             " operations are too many for the reference interpreter; lower the sizes"};
    out->final = true;
    deliver(out);
    return;
  }
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
    if (job.run && !cancel) {
      auto t0 = Clock::now();
      auto report = run_with_check(*out->result->kernel, job.seed, cancel);
      out->timings.push_back({"run", ms_since(t0)});
      if (report) out->run = std::move(*report);
      else out->error = report.failure();
    }
  }
  out->final = true;
  deliver(out);
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
