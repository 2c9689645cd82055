#pragma once
// The learned cost model: gradient-boosted trees (XGBoost through its C API) over
// statement rows (tuner/Features.h), trained so that the sum of a program's row scores
// matches its normalised throughput (Ansor's pack-sum objective). Single-threaded: on two
// cores OpenMP's spinning threads made training 4-5x slower (shared/design/TUNER.md).
// Trained between rounds, never while a candidate is being measured.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/Expected.h"
#include "tuner/Features.h"

namespace tcs::tuner {

struct CostModelReport {
  int programs = 0, rows = 0, rounds = 0;
  double train_ms = 0;
};

class CostModel {
 public:
  explicit CostModel(uint64_t seed);
  ~CostModel();
  CostModel(const CostModel&) = delete;
  CostModel& operator=(const CostModel&) = delete;

  // labels: each program's throughput over the best seen, in [0, 1]; 0 for failures.
  // Replaces the previous model. Errors: Internal (XGBoost refused).
  Expected<CostModelReport> train(const std::vector<FeatureRows>& programs, const std::vector<float>& labels);
  bool trained() const { return trained_; }
  // Higher is faster. Errors: Internal. Untrained: every score 0.
  Expected<std::vector<double>> predict(const std::vector<FeatureRows>& programs) const;
  // The model as XGBoost's JSON, for the cache's cost_models table.
  Expected<std::string> save() const;
  static std::string xgboost_version();
  static std::string params_json();  // the objective, rounds and booster parameters, as JSON

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint64_t seed_;
  bool trained_ = false;
};

// Spearman's rank correlation of two equally long lists (ties share their mean rank);
// 0 when either is constant or shorter than 2.
double rank_correlation(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace tcs::tuner
