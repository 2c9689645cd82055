#include "runtime/ThreadPool.h"

namespace tcs {

namespace {

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

// Polls `ready` for up to ThreadPool::kSpin; true when it came true meanwhile.
template <class Ready>
bool poll_briefly(Ready ready) {
  auto until = std::chrono::steady_clock::now() + ThreadPool::kSpin;
  for (int i = 1;; ++i) {
    if (ready()) return true;
    cpu_relax();
    if (i % 64 == 0 && std::chrono::steady_clock::now() >= until) return ready();
  }
}

// Chunk `index` of `parts` over [0, n): sizes differ by at most one.
std::pair<int64_t, int64_t> chunk(int64_t n, int parts, int index) {
  int64_t base = n / parts, extra = n % parts;
  int64_t begin = index * base + std::min<int64_t>(index, extra);
  return {begin, begin + base + (index < extra ? 1 : 0)};
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  if (std::min<int64_t>(threads(), n) == 1) {
    fn(0, n);
    return;
  }
  job_ = &fn;
  job_n_ = n;
  pending_.store(int(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);  // publishes the job
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (sleeping_workers_ > 0) wake_.notify_all();
  }
  auto [b, e] = chunk(n, threads(), 0);
  if (b < e) fn(b, e);
  auto all_done = [this] { return pending_.load(std::memory_order_acquire) == 0; };
  if (!poll_briefly(all_done)) {
    std::unique_lock<std::mutex> lock(mu_);
    caller_sleeping_ = true;
    done_.wait(lock, all_done);
    caller_sleeping_ = false;
  }
  job_ = nullptr;
}

void ThreadPool::work(int index) {
  uint64_t seen = 0;
  auto new_job = [&] { return stop_.load(std::memory_order_relaxed) || generation_.load(std::memory_order_acquire) != seen; };
  while (true) {
    if (!poll_briefly(new_job)) {
      std::unique_lock<std::mutex> lock(mu_);
      ++sleeping_workers_;
      wake_.wait(lock, new_job);
      --sleeping_workers_;
    }
    if (stop_) return;
    seen = generation_.load(std::memory_order_acquire);
    auto [b, e] = chunk(job_n_, threads(), index);
    if (b < e) (*job_)(b, e);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mu_);
      if (caller_sleeping_) done_.notify_one();
    }
  }
}

extern "C" void tcs_rt_parallel_for(void* pool, void (*fn)(void*, int64_t, int64_t), void* ctx, int64_t n) {
  auto* p = static_cast<ThreadPool*>(pool);
  if (!p) {
    if (n > 0) fn(ctx, 0, n);
    return;
  }
  p->parallel_for(n, [&](int64_t b, int64_t e) { fn(ctx, b, e); });
}

}  // namespace tcs
