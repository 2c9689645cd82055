#pragma once
// Compares a kernel's output with the reference interpreter's, element by element. The
// error of an element is |got - want| / (|want| + mean |want|): relative where values are
// large, absolute on the scale of the tensor where they are near zero (sums that cancel).
// Each element type has its bound; integers and bools must match exactly; NaN passes only
// where the oracle has NaN too (log of a negative in both), never on one side alone.
#include <cstdint>
#include <string>

#include "runtime/Tensor.h"

namespace tcs {

struct TensorComparison {
  std::string name;      // the tensor compared
  bool ok = true;
  double max_error = 0;  // the largest element error
  double bound = 0;      // the bound for this element type
  int64_t worst = -1;    // flat index of the worst element (-1 when all equal)
  double got = 0, want = 0;
  int64_t nan_count = 0;  // elements NaN on one side only
  std::string problem;   // when !ok: what failed, with the worst element's coordinates
};

double comparison_bound(ScalarType t);
TensorComparison compare_tensors(const std::string& name, const Tensor& got, const Tensor& want);

}  // namespace tcs
