#include "CompileService.h"

#include <QMetaObject>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "codegen/CpuKernel.h"
#include "runtime/Compare.h"
#include "runtime/RandomInputs.h"
#include "runtime/ThreadPool.h"

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

// Runs the compiled kernel a few times on seeded random inputs and compares every output
// with the interpreter's on the same inputs.
Expected<RunReport> run_with_check(const SemaDef& def, const DefShapes& shapes, const CpuKernel& kernel,
                                   uint64_t seed, const std::atomic<bool>& cancel) {
  auto inputs = random_inputs(def, shapes, seed);
  if (!inputs) return Error{inputs.error()};
  RunReport report;
  report.threads = int(std::max(1u, std::thread::hardware_concurrency()));
  ThreadPool pool(report.threads);
  Expected<TensorMap> got = kernel.run(*inputs, &pool);
  if (!got) return Error{got.error()};
  // Repeat for about 0.2 s (at least 3 runs, at most 100) and take the median.
  std::vector<double> times;
  auto start = Clock::now();
  while (times.size() < 100 && (times.size() < 3 || ms_since(start) < 200) && !cancel) {
    auto t0 = Clock::now();
    auto again = kernel.run(*inputs, &pool);
    times.push_back(ms_since(t0));
    if (!again) return Error{again.error()};
  }
  if (cancel) return Error{"run cancelled"};
  std::sort(times.begin(), times.end());
  report.repeats = int(times.size());
  report.median_ms = times[times.size() / 2];
  report.gflops = kernel_flops(def, shapes) / (report.median_ms * 1e6);
  auto want = interpret(def, shapes, *inputs);
  if (!want) return Error{"the interpreter failed on the same inputs: " + want.error()};
  for (const auto& [name, t] : *want) {
    TensorComparison c = compare_tensors(name, got->at(name), t);
    report.worst_error = std::max(report.worst_error, c.max_error);
    report.ok &= c.ok;
    report.lines.push_back(c.ok ? name + ": ok, max error " + number(c.max_error) + " (bound " + number(c.bound) + ")"
                                : c.problem);
  }
  return report;
}

}  // namespace

std::shared_ptr<CompileOutcome> prepare_outcome(const CompileJob& job, MappingOptions* options) {
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
    out->error = "the source has errors";
    return out;
  }
  SizeMap sizes;
  for (const std::string& p : def.size_params) {
    if (auto it = job.sizes.find(p); it != job.sizes.end()) sizes[p] = it->second;
    else if (auto h = out->header_sizes.find(p); h != out->header_sizes.end()) sizes[p] = h->second;
  }
  auto bound = sizes_bind(def, sizes, {});
  if (!bound) {
    out->error = bound.error();
    return out;
  }
  auto shapes = shapes_evaluate(def, *bound);
  if (!shapes) {
    out->error = shapes.error();
    return out;
  }
  out->shapes = std::move(*shapes);
  auto opts = job.options_json.empty() ? mapping_preset(job.preset, def) : mapping_options_from_json(job.options_json);
  if (!opts) {
    out->error = "options: " + opts.error();
    return out;
  }
  if (auto st = mapping_options_validate(*opts); !st) {
    out->error = "options: " + st.error();
    return out;
  }
  out->options_json = mapping_options_to_json(*opts);
  *options = std::move(*opts);
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
  MappingOptions options;
  std::shared_ptr<CompileOutcome> out = prepare_outcome(job, &options);
  if (!out->shapes || !out->error.empty() || cancel) {
    out->final = true;
    deliver(out);
    return;
  }
  const SemaDef& def = *out->def();
  CompileRequest req;
  req.def = &def;
  req.shapes = &*out->shapes;
  req.options = options;
  req.emit_llvm = job.emit_llvm;
  req.emit_asm = job.emit_asm;
  req.cancel = &cancel;
  req.build_kernel = job.run;
  if (double flops = kernel_flops(def, *out->shapes); job.run && flops > kMaxCheckedFlops) {
    out->error = "run with check: " + number(flops) +
                 " operations are too many for the reference interpreter; lower the sizes";
    out->final = true;
    deliver(out);
    return;
  }
  bool staged = job.emit_llvm || job.emit_asm;
  if (staged) {
    req.after_c = [&](const CompileResult& early) {
      auto partial = std::make_shared<CompileOutcome>(*out);
      partial->result = std::make_shared<CompileResult>(early);
      partial->timings.insert(partial->timings.end(), early.timings.begin(), early.timings.end());
      deliver(partial);
    };
  }
  auto compiled = compile(req);
  if (!compiled) {
    out->error = compiled.error();
  } else {
    out->timings.insert(out->timings.end(), compiled->timings.begin(), compiled->timings.end());
    out->result = std::make_shared<CompileResult>(std::move(*compiled));
    if (job.run && !cancel) {
      auto t0 = Clock::now();
      auto report = run_with_check(def, *out->shapes, *out->result->kernel, job.seed, cancel);
      out->timings.push_back({"run", ms_since(t0)});
      if (report) out->run = std::move(*report);
      else out->error = report.error();
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
