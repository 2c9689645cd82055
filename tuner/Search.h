#pragma once
// Where the next candidates come from, all built on the one options table: the presets,
// random draws (random_mapping_options), and the evolutionary moves on measured ones:
// one field redrawn, a tile size doubled or halved, two parents crossed field by field.
// Every candidate is validated before it leaves here; invalid ones are counted, never
// looped on. Deterministic for a given generator.
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kernel/KernelSetup.h"
#include "options/MappingOptions.h"

namespace tcs::tuner {

struct Candidate {
  MappingOptions options;
  std::string json;    // canonical
  std::string origin;  // preset, random, mutation, crossover
};

struct SearchSpace {
  const KernelSetup* kernel = nullptr;
  std::set<std::string> seen;  // canonical options measured or queued: never proposed again
  int rejected = 0;            // proposals that failed validation

  // The presets this kernel accepts, not seen before.
  std::vector<Candidate> presets();
  // `count` new candidates: about epsilon of them random, the rest moves on `parents`
  // (canonical JSON, fastest first); random when there are no parents. Fewer when the
  // space seems exhausted (a bounded number of proposals was tried).
  std::vector<Candidate> next(std::mt19937_64& rng, const std::vector<std::string>& parents, int count, double epsilon = 0.1);

 private:
  bool admit(MappingOptions o, std::string origin, std::vector<Candidate>& out);
};

}  // namespace tcs::tuner
