// Part of pass 3 (schedule), for the Max and Preserve3Coincident strategies: loop nests
// that isl left side by side but that scan the same rows are fused along those rows
// (under Preserve3Coincident only where no nest loses an outer parallel loop).
// isl's clustering stops fusing a softmax or a layernorm after its first reduction (the
// next statement needs the whole row, so no inner loop is shared), and each statement
// then runs as its own parallel pass over full-size temporaries. Here the children of a
// sequence whose outermost loops take equal values on both ends of every dependence
// among them get that loop hoisted above the sequence: one parallel loop over rows, the
// statements in their order inside it. A row's temporaries can then live in a row
// buffer (poly/LocalTemporaries.cpp).
#include <algorithm>

#include "poly/PolyJob.h"

namespace tcs::poly {
namespace {

// The first member of the band right below each child (a filter) of `seq`, or none when
// some child does not start with a band. `fewest_parallel`: the fewest leading coincident
// members among those bands.
std::vector<isl::union_pw_aff> outer_members(const isl::schedule_node& seq, int& fewest_parallel) {
  std::vector<isl::union_pw_aff> r;
  fewest_parallel = 1 << 20;
  for (unsigned i = 0, n = seq.n_children(); i < n; ++i) {
    isl::schedule_node below = seq.child(int(i)).child(0);
    if (!below.isa<isl::schedule_node_band>()) return {};
    isl::schedule_node_band band = below.as<isl::schedule_node_band>();
    int parallel = 0;
    while (parallel < int(band.n_member()) && band.member_get_coincident(parallel)) ++parallel;
    fewest_parallel = std::min(fewest_parallel, parallel);
    auto mupa = isl::manage(isl_schedule_node_band_get_partial_schedule(below.get()));
    r.push_back(isl::manage(isl_multi_union_pw_aff_get_union_pw_aff(mupa.get(), 0)));
  }
  return r;
}

isl::schedule_node fuse(const isl::union_map& deps, bool keep_parallel, isl::schedule_node node) {
  if (node.isa<isl::schedule_node_sequence>() && node.n_children() > 1) {
    int fewest_parallel = 0;
    std::vector<isl::union_pw_aff> members = outer_members(node, fewest_parallel);
    // Preserve3Coincident fuses only where no nest loses an outer parallel loop: where
    // some nest has a single one anyway (a row reduction), not the layers of an MLP, each
    // parallel over rows and columns.
    if (!members.empty() && (!keep_parallel || fewest_parallel <= 1)) {
      isl::union_pw_aff f = members[0];
      for (size_t i = 1; i < members.size(); ++i) f = isl::manage(isl_union_pw_aff_union_add(f.release(), members[i].copy()));
      if (distances_hold(node, deps, f, true)) {
        // Each child loses its outermost loop, then one loop over them all goes above.
        for (unsigned i = 0, n = node.n_children(); i < n; ++i) {
          isl::schedule_node band = node.child(int(i)).child(0);
          if (band.as<isl::schedule_node_band>().n_member() > 1) band = band.as<isl::schedule_node_band>().split(1);
          node = node_delete(band).parent().parent();
        }
        auto mupa = isl::manage(isl_multi_union_pw_aff_from_union_pw_aff(f.release()));
        node = isl::manage(isl_schedule_node_insert_partial_schedule(node.release(), mupa.release()));
        node = isl::manage(isl_schedule_node_band_member_set_coincident(node.release(), 0, 1));
        node = isl::manage(isl_schedule_node_band_set_permutable(node.release(), 1)).child(0);
      }
    }
  }
  for (unsigned i = 0, n = node.n_children(); i < n; ++i) node = fuse(deps, keep_parallel, node.child(int(i))).parent();
  return node;
}

}  // namespace

bool distances_hold(const isl::schedule_node& node, const isl::union_map& deps, const isl::union_pw_aff& f, bool zero) {
  isl::union_set dom = node_domain(node);
  isl::union_map d = deps.intersect_domain(dom).intersect_range(dom);
  auto prefix = isl::manage(isl_schedule_node_get_prefix_schedule_union_map(node.get()));
  d = d.intersect(prefix.apply_range(prefix.reverse()));
  if (d.is_empty()) return true;
  isl::union_map fm = isl::manage(isl_union_map_from_union_pw_aff(f.copy()));
  bool holds = true;
  d.apply_domain(fm).apply_range(fm).foreach_map([&](isl::map m) {
    isl::set delta = m.deltas();
    isl_set* bound = isl_set_universe(delta.space().release());
    bound = zero ? isl_set_fix_si(bound, isl_dim_set, 0, 0) : isl_set_lower_bound_si(bound, isl_dim_set, 0, 0);
    holds = holds && delta.is_subset(isl::manage(bound));
  });
  return holds;
}

isl::schedule fuse_outer_loops(const PolyJob& job, const isl::schedule& s) {
  isl::union_map deps = job.flow.unite(job.anti).unite(job.output);
  bool keep_parallel = job.options.outer_fusion == FusionStrategy::Preserve3Coincident;
  return fuse(deps, keep_parallel, s.root()).schedule();
}

}  // namespace tcs::poly
