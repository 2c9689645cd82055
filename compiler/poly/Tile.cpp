// Pass 4: tiling. The outermost permutable band on each path is tiled with the cache tile
// sizes (its statements' own, where options.statements gives them), its point band again with the register tile sizes, and the innermost point band
// is permuted as cpu.pointLoopOrder asks. Members without a size stay whole (tiled by a
// size no loop reaches, which the AST generator folds away), so one band keeps all its
// loops and the point order can move the reduction loop outside the register tile. A
// tiled band over several statement groups (tileImperfectlyNested) runs the groups one
// after the other inside each tile when intraTileScheduleFusionStrategy is Min and the
// dependences allow it; Max and Preserve3Coincident keep them interleaved.
#include <optional>
#include <set>

#include "poly/PolyJob.h"


namespace tcs::poly {
namespace {

constexpr int64_t kWhole = int64_t(1) << 30;

isl::multi_val sizes_for(const isl::schedule_node_band& band, const std::vector<int64_t>& sizes) {
  isl_space* space = isl_schedule_node_band_get_space(band.get());
  isl_multi_val* mv = isl_multi_val_zero(space);
  for (unsigned i = 0; i < band.n_member(); ++i) {
    // A member without a size is tiled by its own span (one tile); huge sizes would do
    // too, but they make isl's AST generation an order of magnitude slower.
    int64_t span = i < sizes.size() ? 0 : band_member_span(band, int(i));
    int64_t s = i < sizes.size() ? sizes[i] : span > 0 ? span : kWhole;
    mv = isl_multi_val_set_val(mv, int(i), isl_val_int_from_si(band.ctx().get(), long(s)));
  }
  return isl::manage(mv);
}

std::vector<int64_t> used_sizes(const isl::schedule_node_band& band, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> r;
  for (unsigned i = 0; i < band.n_member(); ++i) r.push_back(i < sizes.size() ? sizes[i] : 0);
  return r;
}

class Tiler {
 public:
  explicit Tiler(PolyJob& job) : job_(job) {}

  isl::schedule_node visit(isl::schedule_node node) {
    if (node.isa<isl::schedule_node_mark>() && node.child(0).isa<isl::schedule_node_band>() &&
        !band_mark_ids(mark_name(node)).empty())
      return tile(node);  // an outermost band: nothing below it is tiled again
    for (unsigned i = 0, n = node.n_children(); i < n; ++i) node = visit(node.child(int(i))).parent();
    return node;
  }

 private:
  // `mark` sits above the band; returns the node at the mark's position.
  isl::schedule_node tile(isl::schedule_node mark) {
    isl::schedule_node_band band = mark.child(0).as<isl::schedule_node_band>();
    const MappingOptions& o = job_.options_for(mark);  // the kernel's, or its statements' own
    bool perfect = band.every_descendant([](isl::schedule_node n) {
      return !n.isa<isl::schedule_node_sequence>() && !n.isa<isl::schedule_node_set>();
    });
    if (!perfect && !o.tile_imperfectly_nested) {
      job_.note("the band over " + statement_list(band) +
           " encloses several statement groups; it stays untiled (tileImperfectlyNested is off)");
      return mark;
    }
    if (band.n_member() > 1 && !band.permutable()) {
      job_.note("the band over " + statement_list(band) + " is not permutable; it stays untiled");
      return mark;
    }
    isl::schedule_node_band point = band;
    if (!o.tile.empty() && !o.register_tile.empty()) note_straddling(band, o);
    if (!o.tile.empty()) {
      std::vector<int> ids = band_mark_ids(mark_name(mark));
      for (size_t i = 0; i < ids.size(); ++i) {
        job_.loops[ids[i]].role = LoopRole::Tile;
        job_.loops[ids[i]].tile_size = i < o.tile.size() ? o.tile[i] : 0;
      }
      point = band.tile(sizes_for(band, o.tile)).child(0).as<isl::schedule_node_band>();
      point = mark_band(job_, point, LoopRole::Point);
      mark_fixed(point, o.tile, ids);
      if (!perfect && o.intra_tile_fusion == FusionStrategy::Min)
        if (auto distributed = distribute(point)) return climb(*distributed, mark);
    }
    if (!o.register_tile.empty()) {
      std::vector<int64_t> reg = used_sizes(point, o.register_tile);
      std::vector<int> pids = band_mark_ids(mark_name(point.parent()));
      for (size_t i = 0; i < pids.size(); ++i) job_.loops[pids[i]].tile_size = reg[i];
      point = point.tile(sizes_for(point, o.register_tile)).child(0).as<isl::schedule_node_band>();
      point = mark_band(job_, point, LoopRole::RegisterPoint, reg);
      mark_fixed(point, o.register_tile, pids);
    }
    if (!o.cpu.point_loop_order.empty()) point = reorder(point, o.cpu.point_loop_order);
    return climb(point, mark);
  }

  // A point member whose tile has size 1 takes the one value its tile loop gives, as does
  // one whose outer point was already fixed: the AST generator need not scan it.
  void mark_fixed(const isl::schedule_node_band& point, const std::vector<int64_t>& sizes, const std::vector<int>& outer) {
    std::vector<int> ids = band_mark_ids(mark_name(point.parent()));
    for (size_t i = 0; i < ids.size() && i < outer.size(); ++i)
      job_.loops[ids[i]].fixed = (i < sizes.size() && sizes[i] == 1) || job_.loops[outer[i]].fixed;
  }

  // Register tiles start at multiples of their size, cache tiles at multiples of theirs:
  // where a cache tile is not whole register tiles, those at its edges straddle two, keep
  // run-time bounds on both sides, are not unrolled and sum through memory (12 rows in
  // tiles of 128 ran sgemm 1024^3 5x slower than in tiles of 132). Legal, so a note that
  // says which multiple would do.
  void note_straddling(const isl::schedule_node_band& band, const MappingOptions& o) {
    if (only_initialisations(band)) return;  // no sums to carry: the reduction's note says it
    std::vector<int64_t> tile = used_sizes(band, o.tile), reg = used_sizes(band, o.register_tile);
    for (unsigned i = 0; i < band.n_member(); ++i) {
      int64_t t = tile[i], r = reg[i];
      if (t <= 0 || r <= 1 || t % r == 0) continue;
      int64_t extent = band_member_span(band, int(i));
      if (extent > 0 && t >= extent) continue;  // one cache tile: register tiles start with it
      std::string at = "[" + std::to_string(i) + "]";
      job_.note("tile" + at + " (" + std::to_string(t) + ") is not a multiple of registerTile" + at + " (" +
                std::to_string(r) + ") over " + statement_list(band) +
                ": the register tiles at the cache tiles' edges straddle two, keep run-time bounds and sum "
                "through memory, several times slower; tile" + at + " " + std::to_string((t + r - 1) / r * r) +
                " keeps them whole");
    }
  }

  // Back up to the position of the mark we started from.
  static isl::schedule_node climb(isl::schedule_node n, const isl::schedule_node& mark) {
    while (n.tree_depth() > mark.tree_depth()) n = n.parent();
    return n;
  }

  // intraTileScheduleFusionStrategy Min: inside each cache tile, the statement groups run
  // one after the other instead of interleaved point by point. isl sinks the point band
  // below the sequence (a copy per group, each with fresh loop ids); kept only when every
  // dependence other than a reduction's own still runs forwards.
  std::optional<isl::schedule_node> distribute(const isl::schedule_node_band& point) {
    isl::schedule_node band = node_delete(point.parent());
    isl::schedule_node sunk = isl::manage(isl_schedule_node_band_sink(band.release()));
    isl::union_map order = isl::manage(isl_schedule_get_map(sunk.schedule().get()));
    isl::union_map later = isl::manage(isl_union_map_lex_lt_union_map(order.copy(), order.copy()));
    isl::union_map deps = job_.flow.unite(job_.anti).unite(job_.output).subtract(job_.reduction);
    if (!deps.is_subset(later)) {
      job_.note("the statements inside the tiles over " + statement_list(point) +
                " cannot run one after the other (a dependence would run backwards); they stay fused");
      return std::nullopt;
    }
    return mark_unmarked_bands(sunk);
  }

  isl::schedule_node mark_unmarked_bands(isl::schedule_node node) {
    if (node.isa<isl::schedule_node_band>() && !node.parent().isa<isl::schedule_node_mark>())
      node = mark_band(job_, node.as<isl::schedule_node_band>(), LoopRole::Point).parent();
    for (unsigned i = 0, n = node.n_children(); i < n; ++i) node = mark_unmarked_bands(node.child(int(i))).parent();
    return node;
  }

  bool only_initialisations(const isl::schedule_node& node) const {
    bool all = true;
    node_domain(node).foreach_set([&](isl::set set) {
      int k = job_.stmt_index(isl_set_get_tuple_name(set.get()));
      all = all && k >= 0 && job_.stmts[size_t(k)].is_init;
    });
    return all;
  }

  static bool all_shallower_than(const isl::schedule_node& node, size_t indices) {
    bool all = true;
    node_domain(node).foreach_set([&](isl::set set) { all = all && size_t(isl_set_dim(set.get(), isl_dim_set)) < indices; });
    return all;
  }

  isl::schedule_node_band reorder(isl::schedule_node_band band, const std::vector<int>& order) {
    unsigned n = band.n_member();
    point_band_loops_.insert(n);
    if (order.size() != n) {
      // Kernels mix band depths (a 2-d initialisation beside a 3-d reduction): the order
      // applies to the bands it fits. Statements of fewer indices than the order has
      // entries (an initialisation, a bias and ReLU after the product) cannot be the ones
      // it is written for, so they go without a note: every preset of a contraction made
      // one, and notes are for what a user may want to change.
      if (all_shallower_than(band, order.size())) return band;
      job_.note("cpu.pointLoopOrder has " + std::to_string(order.size()) + " entries; the point band over " + statement_list(band) +
           " has " + std::to_string(n) + " loops and keeps its order");
      return band;
    }
    ++reordered_;
    isl::schedule_node mark = band.parent();
    std::vector<int> ids = band_mark_ids(mark_name(mark));
    std::vector<bool> coincident(n);
    for (unsigned i = 0; i < n; ++i) coincident[i] = band.member_get_coincident(int(i));
    auto mupa = isl::manage(isl_schedule_node_band_get_partial_schedule(band.get()));
    isl_union_pw_aff_list* list = isl_union_pw_aff_list_alloc(band.ctx().get(), int(n));
    for (int j : order) list = isl_union_pw_aff_list_add(list, isl_multi_union_pw_aff_get_union_pw_aff(mupa.get(), j));
    // Both the space and the list are taken by the call: nothing is left to free.
    isl::multi_union_pw_aff permuted =
        isl::manage(isl_multi_union_pw_aff_from_union_pw_aff_list(isl_multi_union_pw_aff_get_space(mupa.get()), list));
    // Replace mark and band by the permuted band under a mark listing the ids in the new order.
    isl::schedule_node below = node_delete(node_delete(mark));
    std::vector<int> new_ids;
    for (int j : order) new_ids.push_back(ids[size_t(j)]);
    std::string name = band_mark_name(new_ids);
    isl::schedule_node_band nb = below.insert_partial_schedule(permuted).as<isl::schedule_node_band>();
    nb = nb.set_permutable(1);
    for (unsigned j = 0; j < n; ++j) nb = nb.member_set_coincident(int(j), coincident[size_t(order[j])]);
    return nb.insert_mark(name).child(0).as<isl::schedule_node_band>();
  }

  PolyJob& job_;

 public:
  int reordered_ = 0;
  std::set<unsigned> point_band_loops_;  // how many loops each point band had
};

// Why a point order fits no band, for the message: the point bands' loop counts, and the
// indices that take one value (isl makes no loop of them once sizes are fixed, so options
// written at other sizes have an entry too many for them).
std::string why_no_band_fits(const PolyJob& job, const std::set<unsigned>& loops) {
  std::string r;
  for (unsigned n : loops) r += (r.empty() ? " (its point bands have " : ", ") + std::to_string(n);
  if (!r.empty()) r += " loops";
  std::set<std::string> single;
  for (const std::vector<IndexRange>& ranges : job.shapes.stmts)
    for (const IndexRange& i : ranges)
      if (i.hi == i.lo) single.insert(i.name);
  std::string names;
  for (const std::string& i : single) names += (names.empty() ? "" : ", ") + i;
  if (!names.empty())
    r += (r.empty() ? " (" : "; ") + names + (single.size() == 1 ? " takes" : " take") +
         " one value at these sizes and so makes no loop: options written for it have an entry too many";
  return r.empty() ? r : r + ")";
}

}  // namespace

void tile_bands(PolyJob& job) {
  if (job.options.tile.empty() && job.options.cpu.point_loop_order.empty() && job.options.statements.empty()) return;
  // Point loops keep the original iterator values (origin <= i < origin + size) instead
  // of offsets from the tile origin: simpler bounds, and a member left whole stays plain.
  isl_options_set_tile_shift_point_loops(job.ctx.get(), 0);
  // Tile loops count tiles (0, 1, 2, ...) rather than step through origins (0, 64, ...):
  // no modulo in the schedule, which makes isl's AST generation three times faster.
  isl_options_set_tile_scale_tile_loops(job.ctx.get(), 0);
  Tiler tiler(job);
  job.schedule = tiler.visit(job.schedule.root()).schedule();
  if (!job.options.cpu.point_loop_order.empty() && tiler.reordered_ == 0 && job.options.best_effort)
    job.note("the preset's cpu.pointLoopOrder fits no band of this schedule and was skipped");
  else if (!job.options.cpu.point_loop_order.empty() && tiler.reordered_ == 0)
    throw OptionError{"cpu.pointLoopOrder has " + std::to_string(job.options.cpu.point_loop_order.size()) +
                      " entries, but no tiled band of '" + job.def.name + "' has that many loops" +
                      why_no_band_fits(job, tiler.point_band_loops_)};
}

}  // namespace tcs::poly
