#include "tuner/Worker.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <map>
#include <mutex>
#include <new>
#include <thread>

#include "Compiler.h"
#include "kernel/KernelSetup.h"
#include "kernel/Measure.h"
#include "runtime/Interpreter.h"
#include "runtime/RandomInputs.h"

namespace tcs::tuner {

namespace {

// Above this many operations the candidate is checked at reduced sizes instead: the same
// options, every size halved until it fits. The interpreter (about 5 * 10^7 operations a
// second: matmul 256^3 in 0.7 s) runs once per workload and worker, its outputs kept for
// every later candidate.
constexpr double kCheckFlops = 1e8;

MeasureReply fail(const MeasureJob& job, TrialStatus status, std::string message, double compile_ms = 0) {
  MeasureReply r;
  r.id = job.id;
  r.status = status;
  r.message = std::move(message);
  r.compile_ms = compile_ms;
  return r;
}

MeasureReply out_of_memory(const MeasureJob& job) {
  return fail(job, TrialStatus::OutOfMemory, "out of memory (the worker's limit)");
}

MeasureReply timed(const MeasureJob& job, double compile_ms, std::vector<double> repeats_ms, double median_ms) {
  MeasureReply r;
  r.id = job.id;
  r.compile_ms = compile_ms;
  r.median_ms = median_ms;
  r.repeats_ms = std::move(repeats_ms);
  return r;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The job's kernel set-up at `sizes`; the file is checked once per distinct source.
// Preparers run side by side: the file is shared under a lock.
Expected<KernelSetup> setup_at(const MeasureJob& job, const SizeMap& sizes) {
  static std::mutex mutex;
  static std::string last_source;
  static std::shared_ptr<const CheckedFile> last_file;
  std::shared_ptr<const CheckedFile> file;
  {
    std::lock_guard lock(mutex);
    if (!last_file || last_source != job.source) {
      last_file = check_source("candidate.tc", job.source);
      last_source = job.source;
    }
    file = last_file;
  }
  if (file->has_errors()) return Error{ErrorKind::Source, "the kernel's source has errors"};
  KernelSpec spec;
  spec.entry = job.entry;
  spec.sizes = sizes;
  return kernel_setup(file, spec);
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
// Shared, so a job being timed keeps its inputs while the next job's are made; made under
// a lock, as preparers run side by side.
struct Workbench {
  TensorMap inputs;
  std::optional<TensorMap> reference;
};

// The def and sizes a job runs, as one text: what the worker keeps things by.
std::string workload_text(const MeasureJob& job, const KernelSetup& k) {
  std::string key = job.source + '\n' + job.entry;
  for (const auto& [name, v] : k.shapes.sizes) key += ' ' + name + '=' + std::to_string(v);
  return key;
}

Expected<std::shared_ptr<Workbench>> workbench(const MeasureJob& job, const KernelSetup& k, bool with_reference) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  static std::map<std::string, std::shared_ptr<Workbench>> benches;
  std::string key = workload_text(job, k);
  auto it = benches.find(key);
  if (it == benches.end()) {
    auto inputs = random_inputs(*k.def, k.shapes, 1, {});
    if (!inputs) return inputs.failure();
    if (benches.size() >= 4) benches.clear();  // a worker serves one session's few workloads
    it = benches.emplace(key, std::make_shared<Workbench>(Workbench{std::move(*inputs), std::nullopt})).first;
  }
  if (with_reference && !it->second->reference) {
    auto want = interpret(*k.def, k.shapes, it->second->inputs);
    if (!want) return error_prefixed(want.failure(), "the interpreter failed on the same inputs: ");
    it->second->reference = std::move(*want);
  }
  return it->second;
}

struct Built {
  std::shared_ptr<Kernel> kernel;
  double compile_ms = 0;
};

// Jobs sent unchecked come again with the same options: the tuner's pace program every few
// seconds, and each finalist once a turn (tuner/Task.cpp). Their kernels are compiled once
// per worker, a few at a time: on two cores the search's compiles are what bound matmul
// 256^3's candidates a second, and a pace job compiled each round cost a tenth of them.
std::shared_ptr<Kernel> kept_kernel(const std::string& key, std::shared_ptr<Kernel> compiled = nullptr) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<Kernel>> kept;
  std::lock_guard lock(mutex);
  if (!compiled) {
    auto it = kept.find(key);
    return it == kept.end() ? nullptr : it->second;
  }
  if (kept.size() >= 8) kept.clear();
  return kept[key] = std::move(compiled);
}

Expected<Built> build(const KernelSetup& k, const MappingOptions& o, const MeasureJob& job, const WorkerHooks& hooks) {
  auto t0 = std::chrono::steady_clock::now();
  std::string key = job.check ? std::string() : workload_text(job, k) + '\n' + job.options_json;
  std::shared_ptr<Kernel> kernel = key.empty() ? nullptr : kept_kernel(key);
  if (!kernel) {
    auto compiled = compile_kernel(k, o, CodegenChoice{"cpu", {}, true});
    if (!compiled) return compiled.failure();
    kernel = key.empty() ? compiled->kernel : kept_kernel(key, compiled->kernel);
  }
  Built b{kernel, ms_since(t0)};
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

// A job made ready to time: compiled and checked, with its workload's inputs; or
// answered already (a failure).
struct Prepared {
  MeasureJob job;
  std::optional<MeasureReply> answer;
  std::shared_ptr<Kernel> kernel;
  std::shared_ptr<Workbench> bench;
  double compile_ms = 0;
  double first_ms = 0;  // the checked run's time, on fresh buffers beside other preparations
};

Prepared prepare(const MeasureJob& job, const WorkerHooks& hooks) {
  Prepared p{job, std::nullopt, nullptr, nullptr, 0, 0};
  auto answer = [&](MeasureReply r) {
    p.answer = std::move(r);
    return std::move(p);
  };
  try {
    auto k = setup_at(job, job.sizes);
    if (!k) return answer(fail(job, TrialStatus::Invalid, k.error()));
    auto options = mapping_options_from_json(job.options_json);
    if (!options) return answer(fail(job, TrialStatus::Invalid, options.error()));
    auto built = build(*k, *options, job, hooks);
    if (!built)
      return answer(fail(job, built.error_kind() == ErrorKind::Options ? TrialStatus::Invalid : TrialStatus::CompileError,
                         built.error()));
    double compile_ms = built->compile_ms;
    // Checked at full size where the interpreter is quick, else (sizes that can be halved)
    // a second build at reduced sizes is; sizes that cannot be halved are checked in full
    // (the time limit bounds it).
    bool small = kernel_flops(*k->def, k->shapes) <= kCheckFlops;
    std::optional<KernelSetup> little = !job.check || small ? std::nullopt : reduced(job, *k);
    auto once = run_once(*built->kernel, *k, job, job.check && !little);
    if (!once) return answer(fail(job, TrialStatus::RuntimeFault, once.error(), compile_ms));
    if (!once->check_ok) return answer(fail(job, TrialStatus::WrongResult, disagreement(*once), compile_ms));
    if (little) {
      auto checked = build(*little, *options, job, hooks);
      if (!checked)
        return answer(fail(job, TrialStatus::CompileError, "at reduced sizes for the check: " + checked.error(), compile_ms));
      auto m = run_once(*checked->kernel, *little, job, true);
      if (!m) return answer(fail(job, TrialStatus::RuntimeFault, "at reduced sizes for the check: " + m.error(), compile_ms));
      if (!m->check_ok)
        return answer(fail(job, TrialStatus::WrongResult, "at reduced sizes (each size halved): " + disagreement(*m), compile_ms));
    }
    auto bench = workbench(job, *k, false);
    if (!bench) return answer(fail(job, TrialStatus::Invalid, bench.error(), compile_ms));
    p.kernel = built->kernel;
    p.bench = *bench;
    p.compile_ms = compile_ms;
    p.first_ms = once->first_ms;
    return p;
  } catch (const std::bad_alloc&) {
    return answer(out_of_memory(job));
  }
}

// A timing that follows another at once needs little warm-up: the timing routine's 100 ms
// lets a core reach its steady speed, and these cores have just been timing (or
// compiling) flat out. Caches and first touches are warmed by the warm-up calls either
// way. On matmul 256^3 the full warm-up was half of each trial's time.
constexpr double kBackToBackWarmupMs = 20;
constexpr double kBackToBackWithinMs = 200;

MeasureReply time_prepared(const Prepared& p, double warmup_ms) {
  if (p.answer) return *p.answer;
  const MeasureJob& job = p.job;
  try {
    // A candidate far slower than the best so far is timed with one call, to save the
    // session's time. Which call decides: the checked run shared the cores with the other
    // candidates' compiles, and a two-thread kernel whose second thread waited behind a
    // compiler ran 10-30x slower (matmul 256^3: a fifth of a session's trials were cut at
    // 1-50 ms for options that run in 0.09). So a first run past the cutoff is repeated
    // here, alone, on fresh buffers as before, and that run decides.
    if (job.cutoff_ms > 0 && p.first_ms > job.cutoff_ms) {
      auto m = measure_kernel(*p.kernel, p.bench->inputs, MeasureRequest{});
      if (!m) return fail(job, TrialStatus::RuntimeFault, m.error(), p.compile_ms);
      if (m->first_ms > job.cutoff_ms) {
        MeasureReply r = timed(job, p.compile_ms, {m->first_ms}, m->first_ms);
        r.message = "timed once: slower than the cutoff of " + std::to_string(job.cutoff_ms) + " ms";
        return r;
      }
    }
    MeasureRequest mr;
    mr.plan = TimingPlan{
        .warmup_calls = 1, .min_warmup_ms = warmup_ms, .min_calls = job.min_calls, .min_total_ms = job.min_total_ms, .max_calls = 100000};
    mr.cold_caches = job.cold;
    auto m = measure_kernel(*p.kernel, p.bench->inputs, mr);
    if (!m) return fail(job, TrialStatus::RuntimeFault, m.error(), p.compile_ms);
    return timed(job, p.compile_ms, m->timing.ms, m->timing.median_ms);
  } catch (const std::bad_alloc&) {
    return out_of_memory(job);
  }
}

}  // namespace

MeasureReply run_job(const MeasureJob& job, const WorkerHooks& hooks) {
  return time_prepared(prepare(job, hooks), TimingPlan{}.min_warmup_ms);
}

namespace {

// Who runs now: any number of preparations at once (compiling, checking), or one timing
// alone, so that a recorded time is the kernel's own and not its share of a core with a
// compiler (measured on two cores: a compile beside a timing made it 10-30 % slower). A
// timing that waits goes first: new preparations start after it.
class Turns {
 public:
  void begin_preparing() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !timing_; });
    ++preparing_;
  }
  void end_preparing() {
    std::lock_guard lock(mutex_);
    if (--preparing_ == 0) changed_.notify_all();
  }
  void begin_timing() {
    std::unique_lock lock(mutex_);
    timing_ = true;  // from now on no preparation starts
    changed_.wait(lock, [&] { return preparing_ == 0; });
  }
  void end_timing() {
    std::lock_guard lock(mutex_);
    timing_ = false;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int preparing_ = 0;
  bool timing_ = false;  // a timing runs, or waits for the preparations in progress
};

}  // namespace

// A reader, one preparer per core and the timer (this thread). Jobs read ahead are
// compiled and checked side by side, each timed alone in the order read. The tuner sends
// jobs ahead unless told not to (tuner/Task.cpp); sent one at a time, they simply take
// turns.
int worker_serve(std::istream& in, int reply_fd, const WorkerHooks& hooks) {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::pair<size_t, Expected<MeasureJob>>> jobs;  // read, not yet taken
  std::map<size_t, Prepared> ready;
  size_t read = 0;
  bool input_ended = false, quitting = false;
  Turns turns;
  std::thread reader([&] {
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      auto job = job_from_line(line);
      std::lock_guard lock(mutex);
      jobs.emplace_back(read++, std::move(job));
      changed.notify_all();
    }
    std::lock_guard lock(mutex);
    input_ended = true;
    changed.notify_all();
  });
  auto prepare_jobs = [&] {
    for (;;) {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return quitting || input_ended || !jobs.empty(); });
      if (quitting || jobs.empty()) return;
      auto [at, job] = std::move(jobs.front());
      jobs.pop_front();
      lock.unlock();
      Prepared p;
      if (job) {
        turns.begin_preparing();
        p = prepare(*job, hooks);
        turns.end_preparing();
      } else {
        p.answer = fail(MeasureJob{}, TrialStatus::Invalid, job.error());
      }
      lock.lock();
      ready.emplace(at, std::move(p));
      changed.notify_all();
    }
  };
  std::vector<std::thread> preparers;
  for (unsigned i = 0; i < std::max(1u, std::thread::hardware_concurrency()); ++i) preparers.emplace_back(prepare_jobs);
  // The timer keeps its turn while the next job is prepared already, so the preparers
  // then start side by side instead of one slipping in before each timing.
  int code = 0;
  bool my_turn = false;
  using Clock = std::chrono::steady_clock;
  Clock::time_point last_timed{};  // when the last timing ended
  for (size_t next = 0; code == 0; ++next) {
    std::unique_lock lock(mutex);
    if (my_turn && !ready.count(next)) {
      turns.end_timing();
      my_turn = false;
    }
    changed.wait(lock, [&] { return ready.count(next) || (input_ended && next == read); });
    if (!ready.count(next)) break;
    Prepared p = std::move(ready.at(next));
    ready.erase(next);
    lock.unlock();
    if (!p.answer && !my_turn) turns.begin_timing(), my_turn = true;
    bool back_to_back = std::chrono::duration<double, std::milli>(Clock::now() - last_timed).count() < kBackToBackWithinMs;
    std::string out = reply_to_line(time_prepared(p, back_to_back ? kBackToBackWarmupMs : TimingPlan{}.min_warmup_ms)) + "\n";
    if (!p.answer) last_timed = Clock::now();
    p = Prepared{};  // the kernel and its buffers go before the next is timed
    for (size_t done = 0; done < out.size() && code == 0;) {
      ssize_t n = ::write(reply_fd, out.data() + done, out.size() - done);
      if (n <= 0) code = 1;  // the tuner has gone: our input ends too
      else done += size_t(n);
    }
  }
  if (my_turn) turns.end_timing();
  {
    std::lock_guard lock(mutex);
    quitting = true;
    changed.notify_all();
  }
  for (std::thread& t : preparers) t.join();
  reader.join();
  return code;
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
