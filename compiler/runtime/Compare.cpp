#include "runtime/Compare.h"

#include <cmath>
#include <cstdio>

namespace tcs {

double comparison_bound(ScalarType t) {
  switch (t) {
    case ScalarType::Float16: return 5e-2;  // the kernel accumulates in half precision
    case ScalarType::Float32: return 1e-4;
    case ScalarType::Float64: return 1e-10;
    default: return 0;
  }
}

namespace {

std::string coords(const Tensor& t, int64_t flat) {
  std::string s = "(";
  std::vector<int64_t> c(t.shape.size());
  for (size_t d = t.shape.size(); d-- > 0;) {
    c[d] = t.shape[d] ? flat % t.shape[d] : 0;
    flat = t.shape[d] ? flat / t.shape[d] : 0;
  }
  for (size_t d = 0; d < c.size(); ++d) s += (d ? ", " : "") + std::to_string(c[d]);
  return s + ")";
}

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

TensorComparison compare_tensors(const std::string& name, const Tensor& got, const Tensor& want) {
  TensorComparison r;
  r.name = name;
  r.bound = comparison_bound(want.dtype);
  if (got.shape != want.shape || got.dtype != want.dtype) {
    r.ok = false;
    r.problem = name + ": " + tensor_describe(got) + " where " + tensor_describe(want) + " was expected";
    return r;
  }
  int64_t n = want.numel();
  double scale = 0;
  for (int64_t i = 0; i < n; ++i)
    if (double w = want.get_as_double(i); std::isfinite(w)) scale += std::fabs(w);
  scale = n ? scale / double(n) : 0;
  int64_t first_nan = -1;
  for (int64_t i = 0; i < n; ++i) {
    double g = got.get_as_double(i), w = want.get_as_double(i);
    if (std::isnan(g) && std::isnan(w)) continue;  // NaN where the oracle has NaN: agreed
    if (std::isnan(g) || std::isnan(w)) {
      if (first_nan < 0) first_nan = i;
      ++r.nan_count;
      continue;
    }
    double e;
    if (g == w) e = 0;  // equal infinities included
    else if (std::isinf(g) || std::isinf(w)) e = INFINITY;
    else e = std::fabs(g - w) / (std::fabs(w) + scale);
    if (e > r.max_error || r.worst < 0) {
      if (e > r.max_error) r.max_error = e;
      if (e > 0 || r.worst < 0) r.worst = i, r.got = g, r.want = w;
    }
  }
  if (r.nan_count) {
    r.ok = false;
    r.worst = first_nan;
    r.got = got.get_as_double(first_nan);
    r.want = want.get_as_double(first_nan);
    r.problem = name + coords(want, first_nan) + " is " + num(r.got) + ", expected " + num(r.want) + " (" +
                std::to_string(r.nan_count) + " elements are NaN on one side only)";
    return r;
  }
  if (r.max_error > r.bound) {
    r.ok = false;
    r.problem = name + coords(want, r.worst) + " is " + num(r.got) + ", expected " + num(r.want) + ": error " +
                num(r.max_error) + " exceeds the " + std::string(scalar_type_name(want.dtype)) + " bound " + num(r.bound);
  }
  return r;
}

}  // namespace tcs
