#pragma once
// The runtime's own thread pool for parallel loops of compiled kernels. The calling thread
// takes a share of the work, and iterations are split into one contiguous chunk per thread.
//
// Waking a sleeping thread costs tens of microseconds on a virtual machine (the host must
// schedule the idle virtual CPU), which is more than many whole kernels take, and a kernel
// often runs several parallel loops back to back. So a worker that finishes a job, and the
// caller waiting for the workers, first poll for a short while (kSpin) and only then sleep
// on a condition variable: an idle pool sleeps, a busy one never pays for a wake-up.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tcs {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);  // total threads, the caller included; >= 1
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return int(workers_.size()) + 1; }
  // Runs fn(begin, end) over [0, n) split into contiguous chunks; returns when all are done.
  void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& fn);

  // How long a thread polls before it sleeps: longer than the serial code between two
  // parallel loops of a kernel, far shorter than anything a user would call idle.
  static constexpr std::chrono::microseconds kSpin{200};

 private:
  void work(int index);

  std::vector<std::thread> workers_;
  // The job: written by the caller before it publishes a new generation.
  const std::function<void(int64_t, int64_t)>* job_ = nullptr;
  int64_t job_n_ = 0;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};  // workers still running the current job
  std::atomic<bool> stop_{false};
  // Sleeping: guarded by mu_, so a wake-up is never lost between a check and a wait.
  std::mutex mu_;
  std::condition_variable wake_, done_;
  int sleeping_workers_ = 0;
  bool caller_sleeping_ = false;
};

// The entry point generated kernels call (C ABI): runs fn(ctx, begin, end) over [0, n).
extern "C" void tcs_rt_parallel_for(void* pool, void (*fn)(void*, int64_t, int64_t), void* ctx, int64_t n);

}  // namespace tcs
