#include "tuner/Worker.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <iostream>
#include <new>

#include "Compiler.h"
#include "kernel/KernelSetup.h"
#include "kernel/Measure.h"
#include "runtime/Interpreter.h"
#include "runtime/RandomInputs.h"

namespace tcs::tuner {

namespace {

// Above this many operations the candidate is checked at reduced sizes instead: the same
// options, every size halved until it fits. The interpreter (about 10^8 operations a
// second) runs once per workload and worker, its outputs kept for every later candidate.
constexpr double kCheckFlops = 1e8;

MeasureReply fail(const MeasureJob& job, TrialStatus status, std::string message, double compile_ms = 0) {
  MeasureReply r;
  r.id = job.id;
  r.status = status;
  r.message = std::move(message);
  r.compile_ms = compile_ms;
  return r;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The job's kernel set-up at `sizes`; the file is checked once per distinct source.
Expected<KernelSetup> setup_at(const MeasureJob& job, const SizeMap& sizes) {
  static std::string last_source;
  static std::shared_ptr<const CheckedFile> last_file;
  if (!last_file || last_source != job.source) {
    last_file = check_source("candidate.tc", job.source);
    last_source = job.source;
  }
  if (last_file->has_errors()) return Error{ErrorKind::Source, "the kernel's source has errors"};
  KernelSpec spec;
  spec.entry = job.entry;
  spec.sizes = sizes;
  return kernel_setup(last_file, spec);
}

// Sizes small enough for the interpreter, or none when the kernel refuses smaller ones.
std::optional<KernelSetup> reduced(const MeasureJob& job, const KernelSetup& full) {
  SizeMap sizes = full.shapes.sizes;
  for (int step = 0; step < 16; ++step) {
    bool changed = false;
    for (auto& [n, v] : sizes)
      if (v > 1) v = (v + 1) / 2, changed = true;
    if (!changed) return std::nullopt;
    auto k = setup_at(job, sizes);
    if (!k) return std::nullopt;
    if (kernel_flops(*k->def, k->shapes) <= kCheckFlops) return *k;
  }
  return std::nullopt;
}

// A workload's inputs (seed 1, as every candidate gets) and, once asked for, the
// interpreter's outputs on them: computed once, shared by every candidate of the workload.
struct Workbench {
  TensorMap inputs;
  std::optional<TensorMap> reference;
};

Expected<Workbench*> workbench(const MeasureJob& job, const KernelSetup& k, bool with_reference) {
  static std::map<std::string, Workbench> benches;
  std::string key = job.source + '\n' + job.entry;
  for (const auto& [name, v] : k.shapes.sizes) key += ' ' + name + '=' + std::to_string(v);
  auto it = benches.find(key);
  if (it == benches.end()) {
    auto inputs = random_inputs(*k.def, k.shapes, 1, {});
    if (!inputs) return inputs.failure();
    if (benches.size() >= 4) benches.clear();  // a worker serves one session's few workloads
    it = benches.emplace(key, Workbench{std::move(*inputs), std::nullopt}).first;
  }
  if (with_reference && !it->second.reference) {
    auto want = interpret(*k.def, k.shapes, it->second.inputs);
    if (!want) return error_prefixed(want.failure(), "the interpreter failed on the same inputs: ");
    it->second.reference = std::move(*want);
  }
  return &it->second;
}

struct Built {
  std::shared_ptr<Kernel> kernel;
  double compile_ms = 0;
};

Expected<Built> build(const KernelSetup& k, const MappingOptions& o, const MeasureJob& job, const WorkerHooks& hooks) {
  auto t0 = std::chrono::steady_clock::now();
  auto compiled = compile_kernel(k, o, CodegenChoice{"cpu", {}, true});
  if (!compiled) return compiled.failure();
  Built b{compiled->kernel, ms_since(t0)};
  if (hooks.wrap_kernel) b.kernel = hooks.wrap_kernel(b.kernel, job);
  b.kernel->set_threads(job.threads);
  return b;
}

// The kernel run once on the workload's inputs; with `check`, its outputs compared with the
// interpreter's (Measurement::check_ok).
Expected<Measurement> run_once(const Kernel& kernel, const KernelSetup& k, const MeasureJob& job, bool check) {
  auto bench = workbench(job, k, check);
  if (!bench) return bench.failure();
  auto m = measure_kernel(kernel, (*bench)->inputs, MeasureRequest{});
  if (!m || !check) return m;
  compare_outputs(*m, *(*bench)->reference);
  return m;
}

// Why a checked run disagrees, in words.
std::string disagreement(const Measurement& m) {
  std::string why;
  for (const TensorComparison& c : m.comparisons)
    if (!c.ok) why += (why.empty() ? "" : "; ") + c.problem;
  return why;
}

}  // namespace

MeasureReply run_job(const MeasureJob& job, const WorkerHooks& hooks) {
  try {
    auto k = setup_at(job, job.sizes);
    if (!k) return fail(job, TrialStatus::Invalid, k.error());
    auto options = mapping_options_from_json(job.options_json);
    if (!options) return fail(job, TrialStatus::Invalid, options.error());
    auto built = build(*k, *options, job, hooks);
    if (!built)
      return fail(job, built.error_kind() == ErrorKind::Options ? TrialStatus::Invalid : TrialStatus::CompileError, built.error());
    double compile_ms = built->compile_ms;
    // Checked at full size where the interpreter is quick, else (sizes that can be halved)
    // a second build at reduced sizes is; sizes that cannot be halved are checked in full
    // (the time limit bounds it).
    bool small = kernel_flops(*k->def, k->shapes) <= kCheckFlops;
    std::optional<KernelSetup> little = !job.check || small ? std::nullopt : reduced(job, *k);
    auto once = run_once(*built->kernel, *k, job, job.check && !little);
    if (!once) return fail(job, TrialStatus::RuntimeFault, once.error(), compile_ms);
    if (!once->check_ok) return fail(job, TrialStatus::WrongResult, disagreement(*once), compile_ms);
    if (little) {
      auto checked = build(*little, *options, job, hooks);
      if (!checked) return fail(job, TrialStatus::CompileError, "at reduced sizes for the check: " + checked.error(), compile_ms);
      auto m = run_once(*checked->kernel, *little, job, true);
      if (!m) return fail(job, TrialStatus::RuntimeFault, "at reduced sizes for the check: " + m.error(), compile_ms);
      if (!m->check_ok)
        return fail(job, TrialStatus::WrongResult, "at reduced sizes (each size halved): " + disagreement(*m), compile_ms);
    }
    MeasureReply r;
    r.id = job.id;
    r.compile_ms = compile_ms;
    if (job.cutoff_ms > 0 && once->first_ms > job.cutoff_ms) {
      r.median_ms = once->first_ms;
      r.repeats_ms = {once->first_ms};
      r.message = "timed once: slower than the cutoff of " + std::to_string(job.cutoff_ms) + " ms";
      return r;
    }
    MeasureRequest mr;
    mr.plan = TimingPlan{.warmup_calls = 1, .min_calls = job.min_calls, .min_total_ms = job.min_total_ms, .max_calls = 100000};
    auto bench = workbench(job, *k, false);
    if (!bench) return fail(job, TrialStatus::Invalid, bench.error(), compile_ms);
    auto m = measure_kernel(*built->kernel, (*bench)->inputs, mr);
    if (!m) return fail(job, TrialStatus::RuntimeFault, m.error(), compile_ms);
    r.median_ms = m->timing.median_ms;
    r.repeats_ms = m->timing.ms;
    return r;
  } catch (const std::bad_alloc&) {
    return fail(job, TrialStatus::OutOfMemory, "out of memory (the worker's limit)");
  }
}

int worker_serve(std::istream& in, int reply_fd, const WorkerHooks& hooks) {
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    auto job = job_from_line(line);
    MeasureReply reply = job ? run_job(*job, hooks) : fail(MeasureJob{}, TrialStatus::Invalid, job.error());
    std::string out = reply_to_line(reply) + "\n";
    for (size_t done = 0; done < out.size();) {
      ssize_t n = ::write(reply_fd, out.data() + done, out.size() - done);
      if (n <= 0) return 1;  // the tuner has gone
      done += size_t(n);
    }
  }
  return 0;
}

int worker_main(int memory_mb, const WorkerHooks& hooks) {
  int replies = ::dup(STDOUT_FILENO);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  if (memory_mb > 0) {
    rlimit limit{rlim_t(memory_mb) << 20, rlim_t(memory_mb) << 20};
    ::setrlimit(RLIMIT_DATA, &limit);
  }
  return worker_serve(std::cin, replies, hooks);
}

}  // namespace tcs::tuner
