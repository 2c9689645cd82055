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

// The largest value a size parameter may take (index arithmetic stays within 64 bits).
inline constexpr int64_t kMaxSize = int64_t(1) << 31;

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

// What sizes must satisfy for `def`, each as an expression that must be >= 0: every size
// at least 1, every index range and tensor dimension non-empty, and every access the front
// end could not prove in bounds inside its tensor. shapes_evaluate checks the same for
// given sizes (with messages that carry the numbers); code that leaves the sizes to its
// caller (an export with symbolic sizes) checks these when it runs.
struct SizeCondition {
  enum class Kind { SizeRange, IndexRange, TensorExtent, Access };
  Kind kind;
  SymExpr nonnegative;
  std::string what;  // "index 'k' of statement 1 has a non-empty range"
};
std::vector<SizeCondition> size_conditions(const SemaDef& def);

// "M=128 K=256", in the def's order of size parameters.
std::string sizes_describe(const SemaDef& def, const SizeMap& sizes);

}  // namespace tcs
