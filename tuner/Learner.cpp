#include "tuner/Learner.h"

#include <algorithm>
#include <map>
#include <random>

namespace tcs::tuner {

void Learner::add(FeatureRows rows, const std::string& key, std::optional<double> median_ms) {
  x_.push_back(std::move(rows));
  group_.push_back(key);
  ms_.push_back(median_ms);
}

void Learner::add_prediction(double predicted, double median_ms) {
  predicted_.push_back(predicted);
  measured_.push_back(1 / median_ms);
}

double Learner::chosen_rank() const {
  size_t n = std::min<size_t>(64, predicted_.size());
  return rank_correlation(std::vector<double>(predicted_.end() - long(n), predicted_.end()),
                          std::vector<double>(measured_.end() - long(n), measured_.end()));
}

Expected<bool> Learner::maybe_train() {
  if (x_.size() < 32 || double(x_.size()) < 1.2 * double(trained_on_)) return false;
  std::map<std::string, double> best;
  for (size_t i = 0; i < x_.size(); ++i)
    if (ms_[i] && (!best.count(group_[i]) || *ms_[i] < best[group_[i]])) best[group_[i]] = *ms_[i];
  std::vector<float> labels;
  for (size_t i = 0; i < x_.size(); ++i) labels.push_back(ms_[i] ? float(best[group_[i]] / *ms_[i]) : 0.0f);
  // Validation first: a model of four fifths of the samples ranks the other fifth.
  std::vector<size_t> order(x_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed_ + x_.size()));
  size_t held = x_.size() / 5;
  std::vector<FeatureRows> fit_x, test_x;
  std::vector<float> fit_y;
  std::vector<double> test_y;
  for (size_t j = 0; j < order.size(); ++j) {
    size_t i = order[j];
    if (j < held) test_x.push_back(x_[i]), test_y.push_back(labels[i]);
    else fit_x.push_back(x_[i]), fit_y.push_back(labels[i]);
  }
  CostModel check(seed_);
  if (auto fitted = check.train(fit_x, fit_y); !fitted) return fitted.failure();
  auto guessed = check.predict(test_x);
  if (!guessed) return guessed.failure();
  holdout_rank_ = rank_correlation(*guessed, test_y);
  auto r = model_.train(x_, labels);
  if (!r) return r.failure();
  report_ = *r;
  trained_on_ = x_.size();
  return true;
}

}  // namespace tcs::tuner
