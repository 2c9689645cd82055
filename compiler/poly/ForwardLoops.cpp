// Part of pass 3 (schedule): loops the scheduler made run backwards turn forwards where
// the dependences allow.
// isl is free to give a reduction's loop the schedule -d (the reduction's own
// dependences are not validity constraints, and proximity does not care about the
// sign), and it does so when a statement that follows the reduction sits at d = 0 of the
// same band: a layernorm's mean, a bias added after a sum. The loop then reads each row
// from its end. The hardware prefetcher, which follows contiguous rows forward from one
// to the next, loses the stream: a layernorm ran 1.6x slower backwards, and the C it
// showed read X[-c1].
// Each statement whose band member decreases along its iterators gets that member's
// reflection over its own range, min + max - f: the same values scanned the other way,
// so its order against the statements around it at either end stays. The change is
// kept only when the whole schedule still respects every dependence and the band keeps
// its permutable and coincident flags.
#include <algorithm>

#include "poly/PolyJob.h"

namespace tcs::poly {
namespace {

// The schedule as one map, every statement's schedule padded with zeros to the longest,
// so lexicographic order compares any two instances.
isl::union_map flat_schedule(const isl::schedule& s) {
  isl::union_map m = isl::manage(isl_schedule_get_map(s.get()));
  int longest = 0;
  m.foreach_map([&](isl::map x) { longest = std::max(longest, int(isl_map_dim(x.get(), isl_dim_out))); });
  isl::union_map r = isl::manage(isl_union_map_empty(isl_union_map_get_space(m.get())));
  m.foreach_map([&](isl::map x) {
    isl_map* p = x.copy();
    int n = int(isl_map_dim(p, isl_dim_out));
    p = isl_map_add_dims(p, isl_dim_out, unsigned(longest - n));
    for (int i = n; i < longest; ++i) p = isl_map_fix_si(p, isl_dim_out, unsigned(i), 0);
    p = isl_map_reset_tuple_id(p, isl_dim_out);
    r = r.unite(isl::manage(isl_union_map_from_map(p)));
  });
  return r;
}

// Whether every dependence in `deps` goes from an instance to one that runs later.
bool respects(const isl::union_map& deps, const isl::schedule& s) {
  isl::union_map f = flat_schedule(s);
  isl::union_map later = isl::manage(isl_union_map_lex_lt_union_map(f.copy(), f.copy()));
  return deps.is_subset(later);
}

// `f` run the other way over the instances in `dom`, or null when it does not decrease
// along its iterators (some coefficient negative, none positive) or its range is not a
// pair of numbers (sizes that stay symbolic).
isl::pw_aff forwards(const isl::pw_aff& f, const isl::union_set& dom, const isl::set& context) {
  if (!isl_pw_aff_isa_aff(f.get())) return {};
  isl::aff a = isl::manage(isl_pw_aff_as_aff(f.copy()));
  if (isl_aff_involves_locals(a.get())) return {};
  bool negative = false, positive = false;
  for (int i = 0, n = int(isl_aff_dim(a.get(), isl_dim_in)); i < n; ++i) {
    isl::val c = isl::manage(isl_aff_get_coefficient_val(a.get(), isl_dim_in, i));
    negative |= c.is_neg();
    positive |= c.is_pos();
  }
  if (!negative || positive) return {};
  isl::set instances = dom.extract_set(isl::manage(isl_space_domain(isl_pw_aff_get_space(f.get())))).intersect_params(context);
  isl::val lo = instances.min_val(a), hi = instances.max_val(a);
  if (!lo.is_int() || !hi.is_int()) return {};
  return isl::pw_aff(a.neg().add_constant(lo.add(hi)));
}

// `band` with member `k` replaced by `f`, its flags as they were.
isl::schedule_node with_member(const isl::schedule_node& band, int k, const isl::union_pw_aff& f) {
  isl_schedule_node* n = band.copy();
  int members = int(isl_schedule_node_band_n_member(n));
  isl_bool permutable = isl_schedule_node_band_get_permutable(n);
  std::vector<isl_bool> coincident;
  for (int i = 0; i < members; ++i) coincident.push_back(isl_schedule_node_band_member_get_coincident(n, i));
  isl_multi_union_pw_aff* mupa = isl_schedule_node_band_get_partial_schedule(n);
  mupa = isl_multi_union_pw_aff_set_union_pw_aff(mupa, k, f.copy());
  n = isl_schedule_node_insert_partial_schedule(isl_schedule_node_delete(n), mupa);
  n = isl_schedule_node_band_set_permutable(n, permutable == isl_bool_true);
  for (int i = 0; i < members; ++i) n = isl_schedule_node_band_member_set_coincident(n, i, coincident[size_t(i)] == isl_bool_true);
  return isl::manage(n);
}

struct Deps {
  isl::union_map validity;     // every dependence but the reductions' own
  isl::union_map coincidence;  // all of them
};

// Member `k` of `band` with every decreasing statement turned forwards, if that is legal;
// the band as it was otherwise.
isl::schedule_node turn_member(const Deps& deps, const isl::set& context, isl::schedule_node band, int k) {
  auto mupa = isl::manage(isl_schedule_node_band_get_partial_schedule(band.get()));
  isl::union_pw_aff member = isl::manage(isl_multi_union_pw_aff_get_union_pw_aff(mupa.get(), k));
  isl::union_set dom = node_domain(band);
  isl::union_pw_aff turned = isl::manage(isl_union_pw_aff_empty(isl_union_pw_aff_get_space(member.get())));
  bool changed = false;
  std::vector<isl::pw_aff> pieces;  // one per statement
  isl_union_pw_aff_foreach_pw_aff(
      member.get(),
      [](isl_pw_aff* f, void* user) {
        static_cast<std::vector<isl::pw_aff>*>(user)->push_back(isl::manage(f));
        return isl_stat_ok;
      },
      &pieces);
  for (const isl::pw_aff& f : pieces) {
    isl::pw_aff g = forwards(f, dom, context);
    changed |= !g.is_null();
    turned = isl::manage(isl_union_pw_aff_add_pw_aff(turned.release(), (g.is_null() ? f : g).copy()));
  }
  if (!changed) return band;
  isl::schedule_node candidate = with_member(band, k, turned);
  auto kept = [&](const isl::schedule_node& n) {
    bool coincident = isl_schedule_node_band_member_get_coincident(n.get(), k) == isl_bool_true;
    bool permutable = isl_schedule_node_band_get_permutable(n.get()) == isl_bool_true;
    return (!permutable || distances_hold(n, deps.validity, turned, false)) &&
           (!coincident || distances_hold(n, deps.coincidence, turned, true)) && respects(deps.validity, n.schedule());
  };
  return kept(candidate) ? candidate : band;
}

isl::schedule_node turn(const Deps& deps, const isl::set& context, isl::schedule_node node) {
  if (node.isa<isl::schedule_node_band>())
    for (int k = 0, n = int(isl_schedule_node_band_n_member(node.get())); k < n; ++k) node = turn_member(deps, context, node, k);
  for (unsigned i = 0, n = node.n_children(); i < n; ++i) node = turn(deps, context, node.child(int(i))).parent();
  return node;
}

}  // namespace

isl::schedule turn_loops_forward(const PolyJob& job, const isl::schedule& s) {
  isl::union_map all = job.flow.unite(job.anti).unite(job.output);
  return turn({all.subtract(job.reduction), all}, job.context, s.root()).schedule();
}

}  // namespace tcs::poly
