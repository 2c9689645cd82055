#include "tuner/Sketch.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "lang/Sema.h"
#include "options/OptionsSchema.h"
#include "support/HostCpu.h"

namespace tcs::tuner {

namespace {

std::string statement_name(size_t k) { return "S" + std::to_string(k); }

// A sum of products into at least two indices (matmul, a convolution): the statement a
// fresh sketch's tiles are shaped for, as the contraction preset does.
bool is_contraction(const SemaStmt& s) {
  return s.ast->reduce == ast::ReduceOp::Sum && s.lhs_rank >= 2 && int(s.indices.size()) > s.lhs_rank;
}

// A statement's tile, register tile and point-loop order as its loops see them (its own
// or the kernel's).
struct TileSizes {
  std::vector<int64_t> tile, reg;
  std::vector<int> order;
};
TileSizes own_sizes(const MappingOptions& o, const std::string& statement) {
  auto mine = mapping_options_for_statement(o, statement);
  if (!mine) return {};
  return {mine->tile, mine->register_tile, mine->cpu.point_loop_order};
}

void set_own_sizes(MappingOptions& o, const std::string& statement, const TileSizes& sizes) {
  for (StatementOptions& s : o.statements) {
    if (s.statement != statement) continue;
    MappingOptions scratch;
    scratch.tile = sizes.tile;
    scratch.register_tile = sizes.reg;
    scratch.cpu.point_loop_order = sizes.order;
    if (!s.fields.count("tile")) continue;
    s.fields["tile"] = option_get(scratch, *find_option_field("tile"));
    // Its register tile and loop order may now differ from the kernel's: written whenever
    // there is one.
    if (!sizes.reg.empty()) s.fields["registerTile"] = option_get(scratch, *find_option_field("registerTile"));
    if (!sizes.order.empty()) s.fields["cpu.pointLoopOrder"] = option_get(scratch, *find_option_field("cpu.pointLoopOrder"));
  }
}

// The point loops' order is an annotation: of a tiled band's loops, all may move except a
// register tile's rows and vector columns, which stay innermost where its accumulators
// live (the order the presets give). An order is only written where loops moved; it
// starts from the schedule's own where none fits the band.
size_t movable_loops(const std::vector<int64_t>& tile, const std::vector<int64_t>& reg) {
  return tile.size() - (reg.empty() ? 0 : std::min<size_t>(2, tile.size()));
}

std::vector<int> order_over(std::vector<int> order, size_t loops) {
  if (order.size() != loops) order.resize(loops), std::iota(order.begin(), order.end(), 0);
  return order;
}

// The loops that may move shuffled.
void shuffle_order(std::mt19937_64& rng, std::vector<int>& order, const std::vector<int64_t>& tile,
                   const std::vector<int64_t>& reg) {
  size_t movable = movable_loops(tile, reg);
  if (movable < 2) return;
  order = order_over(std::move(order), tile.size());
  std::shuffle(order.begin(), order.begin() + long(movable), rng);
}

// Two of the loops that may move swapped; false (and `order` untouched) where fewer than
// two may.
bool swap_loops(std::mt19937_64& rng, std::vector<int>& order, const std::vector<int64_t>& tile,
                const std::vector<int64_t>& reg) {
  size_t movable = movable_loops(tile, reg);
  if (movable < 2) return false;
  order = order_over(std::move(order), tile.size());
  size_t a = rng() % movable, b = rng() % (movable - 1);
  std::swap(order[a], order[b >= a ? b + 1 : b]);
  return true;
}

// The accumulators a register tile may keep in vector registers: three quarters of the
// register file (32 with AVX-512, 16 with AVX2), the rest for the operands.
int accumulator_budget() { return host_vector_bytes() >= 64 ? 24 : 12; }

template <class T>
const T& pick(std::mt19937_64& rng, const std::vector<T>& v) {
  return v[size_t(rng() % v.size())];
}

// cpu.fetchAhead's draws: off, or a few iterations of the loop around the innermost one.
const std::vector<int> kFetchAhead = {0, 0, 2, 4, 8};

}  // namespace

std::vector<int64_t> SketchSpace::tile_choices(int64_t extent) {
  std::set<int64_t> out;
  if (extent <= 0) {
    for (int64_t p = 1; p <= 512; p *= 2) out.insert(p);
  } else {
    for (int64_t d = 1; d <= std::min<int64_t>(extent, 1024); ++d)
      if (extent % d == 0) out.insert(d);
    for (int64_t p = 1; p < extent && p <= 1024; p *= 2) out.insert(p);
  }
  return {out.begin(), out.end()};
}

SketchSpace::SketchSpace(const KernelSetup& k) : kernel_(&k) {
  const SemaDef& def = *k.def;
  size_t widest = 0;
  bool found = false;
  for (size_t i = 0; i < def.stmts.size(); ++i) {
    std::vector<int64_t> e;
    for (const IndexRange& r : k.shapes.stmts[i]) e.push_back(r.hi - r.lo + 1);
    stmt_extents_.push_back(e);
    if (!found && is_contraction(def.stmts[i])) main_statement_ = int(i), found = true;
    if (def.stmts[i].indices.size() > def.stmts[widest].indices.size()) widest = i;
  }
  if (!found) main_statement_ = int(widest);

  // The bases: every preset that accepts the kernel, then variations of their structure.
  std::vector<Sketch> bases;
  for (const std::string& name : mapping_preset_names()) {
    if (name == "naive") continue;
    if (auto o = kernel_options(def, OptionsChoice{name, ""}, &k.shapes)) bases.push_back({name, *o});
  }
  std::set<std::string> seen;
  auto add = [&](Sketch s) {
    s.base.best_effort = false;
    if (!mapping_options_validate(s.base)) return;
    if (seen.insert(mapping_options_to_json(s.base)).second) sketches_.push_back(std::move(s));
  };
  const std::vector<int64_t>& main_extents = stmt_extents_[size_t(main_statement_)];
  for (const Sketch& b : bases) {
    add(b);
    if (b.base.tile.empty()) {
      // Tiled over the main statement's loops (sizes drawn by sample()).
      Sketch t{b.name + ", tiled", b.base};
      t.base.tile = std::vector<int64_t>(main_extents.size(), 1);
      add(t);
    }
    if (!b.base.register_tile.empty()) {
      Sketch t{b.name + ", no register tile", b.base};
      t.base.register_tile.clear();
      t.base.cpu.register_accumulate = false;
      for (StatementOptions& s : t.base.statements) s.fields.erase("registerTile");
      add(t);
    }
    if (!b.base.cpu.pack.empty()) {
      Sketch t{b.name + ", no packing", b.base};
      t.base.cpu.pack.clear();
      add(t);
    }
    if (def.stmts.size() > 1)
      for (FusionStrategy f : {FusionStrategy::Min, FusionStrategy::Preserve3Coincident, FusionStrategy::Max})
        if (f != b.base.outer_fusion) {
          Sketch t{b.name + ", " + std::string(fusion_strategy_name(f)) + " fusion", b.base};
          t.base.outer_fusion = f;
          add(t);
        }
  }
}

std::vector<int64_t> SketchSpace::extents_for(const MappingOptions& o, int statement) const {
  if (statement >= 0) return stmt_extents_[size_t(statement)];
  // A kernel-wide tile covers the main statement's loops when it has as many entries,
  // else the first statement's with that many.
  const std::vector<int64_t>& main = stmt_extents_[size_t(main_statement_)];
  if (main.size() == o.tile.size()) return main;
  for (const std::vector<int64_t>& e : stmt_extents_)
    if (e.size() == o.tile.size()) return e;
  std::vector<int64_t> e = main;
  e.resize(o.tile.size(), 0);
  return e;
}

// Tile sizes from each loop's factorisations. Loops the sketch leaves at 1 (a batch loop)
// mostly stay so.
void SketchSpace::sample_tile(std::mt19937_64& rng, std::vector<int64_t>& tile, const std::vector<int64_t>& extents) const {
  for (size_t i = 0; i < tile.size(); ++i) {
    int64_t e = i < extents.size() ? extents[i] : 0;
    if (tile[i] == 1 && rng() % 4 != 0) continue;
    tile[i] = pick(rng, tile_choices(e));
  }
}

// The register tile's vector columns in whole vectors and its rows within the accumulator
// budget; each tile then made a multiple of the register tile it holds.
void SketchSpace::sample_register(std::mt19937_64& rng, std::vector<int64_t>& tile, std::vector<int64_t>& reg,
                                  const std::vector<int64_t>& extents, int lanes) const {
  if (reg.empty()) return;
  // Columns: the last register-tile loop; rows: the others the sketch tiles (> 1).
  size_t col = reg.size() - 1;
  int64_t ecol = col < extents.size() && extents[col] > 0 ? extents[col] : 4 * lanes;
  int64_t vectors = 1 + int64_t(rng() % uint64_t(std::clamp<int64_t>((ecol + lanes - 1) / lanes, 1, 4)));
  reg[col] = vectors * lanes;
  int64_t room = std::max<int64_t>(1, accumulator_budget() / vectors);
  for (size_t i = 0; i < col; ++i) {
    if (reg[i] <= 1) continue;
    int64_t e = i < extents.size() && extents[i] > 0 ? extents[i] : 16;
    reg[i] = 1 + int64_t(rng() % uint64_t(std::clamp<int64_t>(std::min(room, e), 1, 16)));
    room = std::max<int64_t>(1, room / reg[i]);
  }
  fit_to_register(tile, reg, extents);
}

void SketchSpace::fit_to_register(std::vector<int64_t>& tile, const std::vector<int64_t>& reg,
                                  const std::vector<int64_t>& extents) {
  for (size_t i = 0; i < reg.size() && i < tile.size(); ++i) {
    bool whole = i < extents.size() && extents[i] > 0 && tile[i] >= extents[i];
    if (!whole) tile[i] = std::max(reg[i], tile[i] / reg[i] * reg[i]);
  }
}

MappingOptions SketchSpace::sample(std::mt19937_64& rng, const Sketch& s) const {
  MappingOptions o = s.base;
  int lanes = std::max(1, o.cpu.vector_width);
  sample_tile(rng, o.tile, extents_for(o, -1));
  sample_register(rng, o.tile, o.register_tile, extents_for(o, -1), lanes);
  for (size_t k = 0; k < kernel_->def->stmts.size(); ++k) {
    std::string name = statement_name(k);
    if (std::none_of(o.statements.begin(), o.statements.end(), [&](const StatementOptions& so) { return so.statement == name; }))
      continue;
    TileSizes own = own_sizes(o, name);
    sample_tile(rng, own.tile, extents_for(o, int(k)));
    sample_register(rng, own.tile, own.reg, extents_for(o, int(k)), lanes);
    if (rng() % 4 == 0) shuffle_order(rng, own.order, own.tile, own.reg);
    set_own_sizes(o, name, own);
  }
  if (rng() % 4 == 0) shuffle_order(rng, o.cpu.point_loop_order, o.tile, o.register_tile);
  static const std::vector<int> unrolls = {1, 1, 2, 4, 8};
  o.unroll = pick(rng, unrolls);
  if (rng() % 4 == 0) o.cpu.vector_width = std::max(4, lanes / 2);
  for (PackRequest& p : o.cpu.pack)
    if (rng() % 2) p.depth = int(rng() % (o.tile.size() + 1));
  if (rng() % 10 == 0) o.cpu.parallel = !o.cpu.parallel;
  if (rng() % 4 == 0) o.cpu.fetch_ahead = pick(rng, kFetchAhead);
  if (rng() % 4 == 0) o.cpu.stream_stores = !o.cpu.stream_stores;
  return o;
}

void SketchSpace::step_tile(std::mt19937_64& rng, std::vector<int64_t>& tile, const std::vector<int64_t>& reg,
                            const std::vector<int64_t>& extents) const {
  if (tile.empty()) return;
  size_t i = rng() % tile.size();
  std::vector<int64_t> choices = tile_choices(i < extents.size() ? extents[i] : 0);
  auto larger = std::upper_bound(choices.begin(), choices.end(), tile[i]);
  auto smaller = std::lower_bound(choices.begin(), choices.end(), tile[i]);  // the one before it
  if (rng() % 4 == 0) tile[i] = pick(rng, choices);  // redrawn
  else if (rng() % 2 && larger != choices.end()) tile[i] = *larger;
  else if (smaller != choices.begin()) tile[i] = *(smaller - 1);
  fit_to_register(tile, reg, extents);
}

MappingOptions SketchSpace::mutate(std::mt19937_64& rng, const MappingOptions& parent) const {
  MappingOptions o = parent;
  o.best_effort = false;
  // Which tile: the kernel's, or one statement's own.
  std::vector<int> owners = {-1};
  for (size_t k = 0; k < kernel_->def->stmts.size(); ++k)
    for (const StatementOptions& s : o.statements)
      if (s.statement == statement_name(k) && s.fields.count("tile")) owners.push_back(int(k));
  int owner = pick(rng, owners);
  TileSizes own = owner < 0 ? TileSizes{o.tile, o.register_tile, o.cpu.point_loop_order}
                            : own_sizes(o, statement_name(size_t(owner)));
  auto& [tile, reg, order] = own;
  std::vector<int64_t> extents = owner < 0 ? extents_for(o, -1) : extents_for(o, owner);
  int lanes = std::max(1, o.cpu.vector_width);
  double move = double(rng() % 1000) / 1000;
  if (move < 0.62) {
    step_tile(rng, tile, reg, extents);
  } else if (move < 0.70) {
    if (!swap_loops(rng, order, tile, reg)) step_tile(rng, tile, reg, extents);
  } else if (move < 0.85) {
    if (!reg.empty()) sample_register(rng, tile, reg, extents, lanes);  // the tile keeps its sizes where it can
    else step_tile(rng, tile, reg, extents);
  } else if (move < 0.92) {
    static const std::vector<int> unrolls = {1, 2, 4, 8};
    o.unroll = pick(rng, unrolls);
  } else if (move < 0.96 && !o.cpu.pack.empty()) {
    PackRequest& p = o.cpu.pack[rng() % o.cpu.pack.size()];
    p.depth = int(rng() % (o.tile.size() + 1));
  } else if (move < 0.97) {
    o.cpu.stream_stores = !o.cpu.stream_stores;
  } else if (move < 0.98) {
    o.cpu.parallel = !o.cpu.parallel;
  } else if (move < 0.99) {
    o.cpu.fetch_ahead = pick(rng, kFetchAhead);
  } else {
    o.cpu.vector_width = o.cpu.vector_width == host_vector_bytes() / 4 ? std::max(4, lanes / 2) : host_vector_bytes() / 4;
  }
  if (owner < 0) o.tile = tile, o.register_tile = reg, o.cpu.point_loop_order = order;
  else set_own_sizes(o, statement_name(size_t(owner)), own);
  return o;
}

}  // namespace tcs::tuner
