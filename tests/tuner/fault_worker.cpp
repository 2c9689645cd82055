// The measuring worker with faults injected, for tuner_test only: by job number within a
// session, a candidate crashes (2), hangs (3), computes a wrong result (4, 9) or runs as
// it should (every other). With TCS_TEST_FAST_OPTIONS set there are no faults; instead
// every candidate but the one with exactly those options runs 20 ms slower a call. With
// TCS_TEST_FAST_WHEN_FINAL set too, those options run 22 ms slower in the search's
// trials (checked jobs) and only the final turns see them fast. With
// TCS_TEST_SLOWER_OPTIONS set instead, every candidate runs 10 ms slower a call, and the
// one with exactly those options TCS_TEST_SLOWER_PERCENT per cent slower than that. With
// TCS_TEST_HOST_SLOWS_AT=N instead, every job runs 10 ms slower a call before job N and
// 20 ms from it on, as if the machine had turned busy. The product's worker
// (`tcstudio-cli worker`) has no hooks.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

#include "options/MappingOptions.h"
#include "tuner/Worker.h"

namespace {

using namespace tcs;

class FaultyKernel final : public Kernel {
 public:
  FaultyKernel(std::shared_ptr<Kernel> inner, int64_t job, int delay_us)
      : Kernel(inner->def(), inner->shapes()), inner_(std::move(inner)), job_(job), delay_us_(delay_us) {}
  std::string_view target() const override { return inner_->target(); }
  void set_threads(int t) override { inner_->set_threads(t); }
  int threads() const override { return inner_->threads(); }
  std::vector<std::string> local_temporaries() const override { return inner_->local_temporaries(); }
  Status run_buffers(std::vector<Tensor>& buffers) const override {
    if (delay_us_ > 0) ::usleep(useconds_t(delay_us_));
    if (job_ == 2) ::raise(SIGSEGV);
    if (job_ == 3)
      for (;;) ::pause();
    Status s = inner_->run_buffers(buffers);
    if (s && (job_ == 4 || job_ == 9)) {
      const SemaDef& d = def();
      for (size_t t = 0; t < d.tensors.size(); ++t)
        if (d.tensors[t].role == TensorRole::Output && buffers[t].numel() > 0) {
          buffers[t].set_from_double(0, buffers[t].get_as_double(0) + 1.0);
          break;
        }
    }
    return s;
  }

 private:
  std::shared_ptr<Kernel> inner_;
  int64_t job_;
  int delay_us_;
};

}  // namespace

int main() {
  const char* fast_text = std::getenv("TCS_TEST_FAST_OPTIONS");
  const auto fast = mapping_options_from_json(fast_text ? fast_text : "{}");  // read once, not per job
  const bool fast_when_final = std::getenv("TCS_TEST_FAST_WHEN_FINAL") != nullptr;
  const char* slower_text = std::getenv("TCS_TEST_SLOWER_OPTIONS");
  const auto slower = mapping_options_from_json(slower_text ? slower_text : "{}");
  const char* percent = std::getenv("TCS_TEST_SLOWER_PERCENT");
  const int slower_us = 10000 + (percent ? std::atoi(percent) * 100 : 0);
  const char* slows_at = std::getenv("TCS_TEST_HOST_SLOWS_AT");
  tcs::tuner::WorkerHooks hooks;
  hooks.wrap_kernel = [&](std::shared_ptr<Kernel> k, const tcs::tuner::MeasureJob& job) -> std::shared_ptr<Kernel> {
    if (fast_text) {
      auto given = mapping_options_from_json(job.options_json);
      bool is_fast = fast && given && *fast == *given;
      int delay_us = !is_fast ? 20000 : fast_when_final && job.check ? 22000 : 0;
      return std::make_shared<FaultyKernel>(std::move(k), 0, delay_us);
    }
    if (slows_at) return std::make_shared<FaultyKernel>(std::move(k), 0, job.id < std::atoll(slows_at) ? 10000 : 20000);
    if (slower_text) {
      auto given = mapping_options_from_json(job.options_json);
      return std::make_shared<FaultyKernel>(std::move(k), 0, slower && given && *slower == *given ? slower_us : 10000);
    }
    return std::make_shared<FaultyKernel>(std::move(k), job.id, 0);
  };
  return tcs::tuner::worker_main(0, hooks);
}
