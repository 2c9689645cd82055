#pragma once
// The runtime's own thread pool for parallel loops of compiled kernels. Workers sleep on
// a condition variable between jobs (no spinning), the calling thread takes a share of
// the work, and iterations are split into one contiguous chunk per thread.
#include <algorithm>
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

 private:
  void work(int index);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const std::function<void(int64_t, int64_t)>* job_ = nullptr;
  int64_t job_n_ = 0;
  uint64_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
};

// The entry point generated kernels call (C ABI): runs fn(ctx, begin, end) over [0, n).
extern "C" void tcs_rt_parallel_for(void* pool, void (*fn)(void*, int64_t, int64_t), void* ctx, int64_t n);

}  // namespace tcs
