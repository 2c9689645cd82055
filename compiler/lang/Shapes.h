#pragma once
// Binds size parameters to numbers and evaluates every inferred range and shape. This is
// where impossible sizes are refused: an empty index range, a declared size that the
// inputs contradict, an access that the sizes push out of bounds.
#include <map>
#include <string>
#include <vector>

#include "lang/Sema.h"
#include "support/Expected.h"

namespace tcs {

// What the caller knows of one tensor it supplies.
struct TensorSignature {
  ScalarType dtype;
  std::vector<int64_t> shape;
};

// Sizes from `explicit_sizes` and from the shapes of supplied tensors (inputs, and outputs
// supplied for op= accumulation); every size parameter must end up bound, consistently.
Expected<SizeMap> sizes_bind(const SemaDef& def, const SizeMap& explicit_sizes,
                             const std::map<std::string, TensorSignature>& supplied);

struct IndexRange {
  std::string name;
  int64_t lo = 0, hi = 0;  // inclusive
};

struct TensorShape {
  std::vector<int64_t> extent;  // per dimension
  std::vector<int64_t> min;     // first coordinate per dimension (usually 0)
  int64_t numel() const;
  std::vector<int64_t> strides() const;  // row-major, in elements
};

struct DefShapes {
  SizeMap sizes;
  std::vector<TensorShape> tensors;            // parallel to SemaDef::tensors
  std::vector<std::vector<IndexRange>> stmts;  // parallel to SemaDef::stmts
};

Expected<DefShapes> shapes_evaluate(const SemaDef& def, const SizeMap& sizes);

// "M=128 K=256", in the def's order of size parameters.
std::string sizes_describe(const SemaDef& def, const SizeMap& sizes);

}  // namespace tcs
