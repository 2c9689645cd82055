#include "tuner/Search.h"

#include "options/OptionsSchema.h"

namespace tcs::tuner {

namespace {

// One field redrawn from a fresh random draw. Tile fields are drawn most often: they
// matter most (Ansor weights its tile-size mutation 0.9).
MappingOptions redraw_field(std::mt19937_64& rng, const MappingOptions& parent, const SemaDef& def) {
  MappingOptions fresh = random_mapping_options(rng, def);
  const auto& fields = option_fields();
  std::vector<const OptionField*> pool;
  for (const OptionField& f : fields) {
    int weight = f.name == "tile" ? 6 : f.name == "registerTile" ? 3 : 1;
    for (int i = 0; i < weight; ++i) pool.push_back(&f);
  }
  const OptionField* f = pool[rng() % pool.size()];
  MappingOptions child = parent;
  (void)option_set(child, *f, option_get(fresh, *f));
  return child;
}

// A local step: one tile or register-tile size doubled or halved.
MappingOptions step_size(std::mt19937_64& rng, const MappingOptions& parent) {
  MappingOptions child = parent;
  std::vector<int64_t>& sizes = (rng() % 3 == 0 && !child.register_tile.empty()) || child.tile.empty() ? child.register_tile : child.tile;
  if (sizes.empty()) return child;
  int64_t& s = sizes[rng() % sizes.size()];
  s = rng() % 2 ? s * 2 : std::max<int64_t>(1, s / 2);
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

std::vector<Candidate> SearchSpace::presets() {
  std::vector<Candidate> out;
  for (const std::string& name : mapping_preset_names()) {
    if (name == "naive") continue;  // the baseline every other choice beats
    auto o = kernel_options(*kernel->def, OptionsChoice{name, ""}, &kernel->shapes);
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
  const SemaDef& def = *kernel->def;
  std::uniform_real_distribution<double> unit(0, 1);
  for (int tries = 0; int(out.size()) < count && tries < 50 * count; ++tries) {
    bool random = parents.empty() || unit(rng) < epsilon || (tries == 0 && epsilon > 0);  // at least one per batch
    if (random) {
      admit(random_mapping_options(rng, def), "random", out);
      continue;
    }
    // Fitter parents more often: the index is the smaller of two uniform draws.
    size_t first = rng() % parents.size(), second = rng() % parents.size();
    size_t i = std::min(first, second);
    double move = unit(rng);
    if (move < 0.45) admit(redraw_field(rng, parents[i], def), "mutation", out);
    else if (move < 0.85) admit(step_size(rng, parents[i]), "mutation", out);
    else admit(cross(rng, parents[i], parents[rng() % parents.size()]), "crossover", out);
  }
  return out;
}

}  // namespace tcs::tuner
