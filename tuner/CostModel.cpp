#include "tuner/CostModel.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

namespace tcs::tuner {

namespace {

constexpr int kRounds = 80;

// The booster's parameters, the one place they are written (training and the record of
// a snapshot both read them). The seed is added per model.
const std::vector<std::pair<std::string, std::string>> kParams = {
    {"booster", "gbtree"}, {"tree_method", "hist"}, {"max_bin", "64"},       {"max_depth", "6"},
    {"eta", "0.2"},        {"gamma", "0.001"},      {"min_child_weight", "1"}, {"lambda", "1"},
    {"nthread", "1"},      {"base_score", "0"},     {"disable_default_eval_metric", "1"}, {"verbosity", "0"}};

Error xgb_error(const char* what) { return Error{ErrorKind::Internal, std::string("XGBoost: ") + what + ": " + XGBGetLastError()}; }

// Rows of every program stacked; `owner[r]` is row r's program.
struct Stacked {
  std::vector<float> data;
  std::vector<int> owner;
};

Stacked stack(const std::vector<FeatureRows>& programs) {
  Stacked s;
  for (size_t p = 0; p < programs.size(); ++p) {
    s.data.insert(s.data.end(), programs[p].data.begin(), programs[p].data.end());
    s.owner.insert(s.owner.end(), size_t(programs[p].rows), int(p));
  }
  return s;
}

struct Matrix {
  DMatrixHandle h = nullptr;
  ~Matrix() {
    if (h) XGDMatrixFree(h);
  }
};

}  // namespace

struct CostModel::Impl {
  BoosterHandle booster = nullptr;
  ~Impl() {
    if (booster) XGBoosterFree(booster);
  }
};

CostModel::CostModel(uint64_t seed) : impl_(std::make_unique<Impl>()), seed_(seed) {}
CostModel::~CostModel() = default;

std::string CostModel::xgboost_version() {
  int major = 0, minor = 0, patch = 0;
  XGBoostVersion(&major, &minor, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

Expected<CostModelReport> CostModel::train(const std::vector<FeatureRows>& programs, const std::vector<float>& labels) {
  auto t0 = std::chrono::steady_clock::now();
  Stacked s = stack(programs);
  CostModelReport report;
  report.programs = int(programs.size());
  report.rows = int(s.owner.size());
  if (s.owner.empty()) return report;
  Matrix m;
  if (XGDMatrixCreateFromMat(s.data.data(), s.owner.size(), bst_ulong(feature_count()), NAN, &m.h) != 0)
    return xgb_error("building the training matrix");
  BoosterHandle b = nullptr;
  if (XGBoosterCreate(&m.h, 1, &b) != 0) return xgb_error("creating the booster");
  std::unique_ptr<Impl> fresh = std::make_unique<Impl>();
  fresh->booster = b;
  std::vector<std::pair<std::string, std::string>> params(kParams.begin(), kParams.end());
  params.push_back({"seed", std::to_string(seed_ % 2147483647)});
  for (const auto& [k, v] : params)
    if (XGBoosterSetParam(b, k.c_str(), v.c_str()) != 0) return xgb_error("setting a parameter");
  // Pack-sum: a program's prediction is the sum of its rows' margins; each row gets the
  // gradient of its program's squared error, weighted by the label so that fast programs
  // (the ones the search cares about) are fitted best. A leaf's step is its rows' summed
  // gradient over their summed hessian, and it moves the program's sum once for each of
  // the program's rows in that leaf: with a hessian of one weight a row, a program of k
  // alike rows stepped k times too far. mlp3's three alike layers (9-12 rows) overshot
  // by more than the step closed each round and diverged to -1.5e11 within 80 rounds
  // (held-out rank -0.27). A hessian of the program's row count per row never overshoots.
  std::vector<float> grad(s.owner.size()), hess(s.owner.size());
  for (int round = 0; round < kRounds; ++round) {
    bst_ulong n = 0;
    const float* margin = nullptr;
    if (XGBoosterPredict(b, m.h, 1, 0, 1, &n, &margin) != 0) return xgb_error("predicting while training");
    std::vector<double> sum(programs.size(), 0.0);
    for (size_t r = 0; r < n; ++r) sum[size_t(s.owner[r])] += margin[r];
    for (size_t r = 0; r < n; ++r) {
      size_t p = size_t(s.owner[r]);
      float w = std::max(labels[p], 0.1f);
      grad[r] = float(w * (sum[p] - labels[p]));
      hess[r] = w * float(programs[p].rows);
    }
    if (XGBoosterBoostOneIter(b, m.h, grad.data(), hess.data(), bst_ulong(grad.size())) != 0) return xgb_error("a boosting round");
    report.rounds = round + 1;
  }
  impl_ = std::move(fresh);
  trained_ = true;
  report.train_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

Expected<std::vector<double>> CostModel::predict(const std::vector<FeatureRows>& programs) const {
  std::vector<double> out(programs.size(), 0.0);
  if (!trained_ || programs.empty()) return out;
  Stacked s = stack(programs);
  if (s.owner.empty()) return out;
  Matrix m;
  if (XGDMatrixCreateFromMat(s.data.data(), s.owner.size(), bst_ulong(feature_count()), NAN, &m.h) != 0)
    return xgb_error("building the prediction matrix");
  bst_ulong n = 0;
  const float* margin = nullptr;
  if (XGBoosterPredict(impl_->booster, m.h, 1, 0, 0, &n, &margin) != 0) return xgb_error("predicting");
  for (size_t r = 0; r < n; ++r) out[size_t(s.owner[r])] += margin[r];
  return out;
}

Expected<std::string> CostModel::save() const {
  if (!trained_) return std::string();
  bst_ulong len = 0;
  const char* data = nullptr;
  if (XGBoosterSaveModelToBuffer(impl_->booster, R"({"format": "json"})", &len, &data) != 0) return xgb_error("saving");
  return std::string(data, size_t(len));
}

std::string CostModel::params_json() {
  std::string out = "{\"objective\": \"pack-sum\", \"row_hessian\": \"the program's rows\", \"rounds\": " + std::to_string(kRounds);
  for (const auto& [k, v] : kParams) out += ", \"" + k + "\": \"" + v + "\"";
  return out + "}";
}

double rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  size_t n = std::min(a.size(), b.size());
  if (n < 2) return 0;
  auto ranks = [n](const std::vector<double>& v) {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return v[x] < v[y]; });
    std::vector<double> r(n);
    for (size_t i = 0; i < n;) {
      size_t j = i;
      while (j + 1 < n && v[order[j + 1]] == v[order[i]]) ++j;
      for (size_t k = i; k <= j; ++k) r[order[k]] = (double(i) + double(j)) / 2;
      i = j + 1;
    }
    return r;
  };
  std::vector<double> ra = ranks(a), rb = ranks(b);
  double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / double(n), mb = std::accumulate(rb.begin(), rb.end(), 0.0) / double(n);
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < n; ++i) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : 0;
}

}  // namespace tcs::tuner
