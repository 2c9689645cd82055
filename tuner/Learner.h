#pragma once
// The cost model's side of a tuning task: what it learns from (this workload's trials and
// those of the same kernel at other sizes, from the cache), when it retrains (the data
// grew by a fifth: Ansor's adaptive training, so training time stays a small part of a
// round), and how well it ranks what it has not seen.
#include <optional>
#include <string>
#include <vector>

#include "tuner/CostModel.h"

namespace tcs::tuner {

class Learner {
 public:
  explicit Learner(uint64_t seed) : model_(seed), seed_(seed) {}

  // A measured candidate of workload `key`; no median: it failed (label 0).
  void add(FeatureRows rows, const std::string& key, std::optional<double> median_ms);
  // A prediction made before the candidate ran, and its measured time.
  void add_prediction(double predicted, double median_ms);
  // Retrains when there are 32 samples and a fifth more than last time; true if it did.
  Expected<bool> maybe_train();

  const CostModel& model() const { return model_; }
  int trained_on() const { return int(trained_on_); }
  double holdout_rank() const { return holdout_rank_; }  // each sample held out once (five folds), last training
  double chosen_rank() const;                            // on the last 64 predictions
  const CostModelReport& last_training() const { return report_; }

 private:
  CostModel model_;
  uint64_t seed_;
  std::vector<FeatureRows> x_;
  std::vector<std::string> group_;  // labels are normalised per workload
  std::vector<std::optional<double>> ms_;
  size_t trained_on_ = 0;
  std::vector<double> predicted_, measured_;
  double holdout_rank_ = 0;
  CostModelReport report_;
};

}  // namespace tcs::tuner
