#pragma once
// What the cost model learns from: one row of numbers per statement call in a
// candidate's loop nest, read from the plain-data nest (loop trips, the mapping's
// annotations, packs) and its access view (strides, reuse) without compiling it. A
// program's score is the sum of its rows' scores (Ansor's pack-sum). Counts enter as
// sign * log2(1 + |x|), so a 2x change is a step of about one whatever the size.
#include <string>
#include <vector>

#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "loopnest/LoopNest.h"

namespace tcs::tuner {

// Bump when the rows change meaning: stored rows of another version are recomputed.
inline constexpr int kFeatureVersion = 5;

struct FeatureRows {
  int rows = 0;
  std::vector<float> data;  // rows x feature_count(), row-major
};

int feature_count();
const std::vector<std::string>& feature_names();

FeatureRows extract_features(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest);

}  // namespace tcs::tuner
