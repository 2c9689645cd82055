// The runtime's thread pool: every iteration runs exactly once, in contiguous chunks, over
// many jobs back to back (the case a kernel with several parallel loops makes); and a pool
// with nothing to do sleeps: its workers stop polling soon after their last job.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <thread>
#include <vector>

#include "runtime/ThreadPool.h"

namespace tcs {
namespace {

TEST(ThreadPool, EveryIterationRunsOnceOverManyJobs) {
  for (int threads : {1, 2, 3, 5}) {
    ThreadPool pool(threads);
    for (int64_t n : {int64_t(1), int64_t(2), int64_t(7), int64_t(1000), int64_t(4096)}) {
      for (int job = 0; job < 50; ++job) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        std::atomic<int> chunks{0};
        pool.parallel_for(n, [&](int64_t b, int64_t e) {
          ASSERT_LT(b, e);
          ++chunks;
          for (int64_t i = b; i < e; ++i) ++hits[size_t(i)];
        });
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[size_t(i)].load(), 1) << "threads " << threads << " n " << n << " i " << i;
        EXPECT_EQ(chunks.load(), int(std::min<int64_t>(threads, n)));
      }
    }
  }
}

TEST(ThreadPool, TheGeneratedCodeEntryRunsWithAndWithoutAPool) {
  std::vector<int> seen(100, 0);
  auto fn = [](void* ctx, int64_t b, int64_t e) {
    auto* v = static_cast<std::vector<int>*>(ctx);
    for (int64_t i = b; i < e; ++i) (*v)[size_t(i)] += 1;
  };
  tcs_rt_parallel_for(nullptr, fn, &seen, 100);
  ThreadPool pool(2);
  tcs_rt_parallel_for(&pool, fn, &seen, 100);
  for (int x : seen) EXPECT_EQ(x, 2);
}

double process_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

TEST(ThreadPool, AnIdlePoolSleeps) {
  ThreadPool pool(3);
  std::atomic<int64_t> sum{0};
  for (int job = 0; job < 20; ++job) pool.parallel_for(64, [&](int64_t b, int64_t e) { sum += e - b; });
  ASSERT_EQ(sum.load(), 20 * 64);
  // Past the polling window every worker sleeps: over a quarter of a second of idling,
  // two polling workers would burn about 500 ms of CPU; sleeping ones next to none.
  std::this_thread::sleep_for(ThreadPool::kSpin * 10);
  double before = process_cpu_ms();
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  double burnt = process_cpu_ms() - before;
  EXPECT_LT(burnt, 25.0) << "the idle pool used " << burnt << " ms of CPU in 250 ms";
  // And it still wakes for the next job.
  pool.parallel_for(64, [&](int64_t b, int64_t e) { sum += e - b; });
  EXPECT_EQ(sum.load(), 21 * 64);
}

}  // namespace
}  // namespace tcs
