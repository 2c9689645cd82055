#pragma once
// Where the next candidates come from, all built on the one options table and the
// kernel's sketches (tuner/Sketch.h): the presets, fresh annotations of a sketch, and
// the evolutionary moves on measured ones: an annotation changed (mostly a tile size, to
// a neighbouring factor of its loop's extent), one field of any kind redrawn, two parents
// crossed field by field. Every candidate is validated before it leaves here; invalid
// ones are counted, never looped on. Deterministic for a given generator.
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kernel/KernelSetup.h"
#include "options/MappingOptions.h"
#include "tuner/Sketch.h"

namespace tcs::tuner {

struct Candidate {
  MappingOptions options;
  std::string json;    // canonical
  std::string origin;  // start, preset, "sketch: NAME" (which one), random, mutation, crossover
};

class SearchSpace {
 public:
  explicit SearchSpace(const KernelSetup& kernel);

  std::set<std::string> seen;  // canonical options measured or queued: never proposed again
  int rejected = 0;            // proposals that failed validation
  int same_program = 0;        // valid proposals whose program was measured or queued already

  const SketchSpace& sketches() const { return sketches_; }
  // The caller's starting options, not seen before (one the compiler refuses is measured,
  // to record why).
  std::vector<Candidate> starts(const std::vector<MappingOptions>& start);
  // The presets this kernel accepts, not seen before.
  std::vector<Candidate> presets();
  // `count` new candidates: about epsilon of them fresh samples of a random sketch (a few
  // of those drawn from the whole table instead), the rest moves on `parents` (canonical
  // JSON, fitter first); samples when there are no parents. Fewer when the space seems
  // exhausted (a bounded number of proposals was tried).
  std::vector<Candidate> next(std::mt19937_64& rng, const std::vector<std::string>& parents, int count, double epsilon = 0.1);

 private:
  bool admit(MappingOptions o, std::string origin, std::vector<Candidate>& out);

  const KernelSetup* kernel_;
  SketchSpace sketches_;
};

}  // namespace tcs::tuner
