#include "tuner/Search.h"

#include "options/OptionsSchema.h"

namespace tcs::tuner {

namespace {

// One field of any kind redrawn from a fresh random draw: the structural moves (fusion,
// tiling imperfectly nested bands, vectorising) that annotations do not make.
MappingOptions redraw_field(std::mt19937_64& rng, const MappingOptions& parent, const SemaDef& def) {
  MappingOptions fresh = random_mapping_options(rng, def);
  const auto& fields = option_fields();
  const OptionField& f = fields[rng() % fields.size()];
  MappingOptions child = parent;
  (void)option_set(child, f, option_get(fresh, f));
  return child;
}

// Each field from one parent or the other.
MappingOptions cross(std::mt19937_64& rng, const MappingOptions& a, const MappingOptions& b) {
  MappingOptions child = a;
  for (const OptionField& f : option_fields())
    if (rng() % 2) (void)option_set(child, f, option_get(b, f));
  if (rng() % 2) child.statements = b.statements;
  return child;
}

}  // namespace

SearchSpace::SearchSpace(const KernelSetup& kernel) : kernel_(&kernel), sketches_(kernel) {}

bool SearchSpace::admit(MappingOptions o, std::string origin, std::vector<Candidate>& out) {
  if (!mapping_options_validate(o)) {
    ++rejected;
    return false;
  }
  std::string json = mapping_options_to_json(o);
  if (!seen.insert(json).second) return false;
  out.push_back({std::move(o), std::move(json), std::move(origin)});
  return true;
}

std::vector<Candidate> SearchSpace::starts(const std::vector<MappingOptions>& start) {
  std::vector<Candidate> out;
  for (const MappingOptions& o : start) admit(o, "start", out);
  return out;
}

std::vector<Candidate> SearchSpace::presets() {
  std::vector<Candidate> out;
  for (const std::string& name : mapping_preset_names()) {
    if (name == "naive") continue;  // the baseline every other choice beats
    auto o = kernel_options(*kernel_->def, OptionsChoice{name, ""}, &kernel_->shapes);
    if (o) admit(*o, "preset", out);
  }
  return out;
}

std::vector<Candidate> SearchSpace::next(std::mt19937_64& rng, const std::vector<std::string>& parent_json, int count,
                                         double epsilon) {
  std::vector<MappingOptions> parents;
  for (const std::string& j : parent_json)
    if (auto o = mapping_options_from_json(j)) parents.push_back(*o);
  std::vector<Candidate> out;
  const SemaDef& def = *kernel_->def;
  const std::vector<Sketch>& sketches = sketches_.sketches();
  std::uniform_real_distribution<double> unit(0, 1);
  for (int tries = 0; int(out.size()) < count && tries < 50 * count; ++tries) {
    bool fresh = parents.empty() || unit(rng) < epsilon || (tries == 0 && epsilon > 0);  // at least one per batch
    if (fresh) {
      if (sketches.empty() || unit(rng) < 0.2) admit(random_mapping_options(rng, def), "random", out);
      else {
        const Sketch& sketch = sketches[rng() % sketches.size()];
        admit(sketches_.sample(rng, sketch), "sketch: " + sketch.name, out);
      }
      continue;
    }
    // Fitter parents more often: the index is the smaller of two uniform draws.
    size_t first = rng() % parents.size(), second = rng() % parents.size();
    size_t i = std::min(first, second);
    double move = unit(rng);
    if (move < 0.75) admit(sketches_.mutate(rng, parents[i]), "mutation", out);
    else if (move < 0.85) admit(redraw_field(rng, parents[i], def), "mutation", out);
    else admit(cross(rng, parents[i], parents[rng() % parents.size()]), "crossover", out);
  }
  return out;
}

}  // namespace tcs::tuner
