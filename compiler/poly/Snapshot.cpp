// The schedule tree as plain data, taken after each pass. Our band marks are folded into
// the band they name, so a snapshot shows loops with their ids, not bookkeeping nodes.

#include "poly/PolyJob.h"

namespace tcs::poly {
namespace {

std::vector<std::string> statements_below(const isl::schedule_node& n) {
  std::vector<std::string> r;
  node_domain(n).foreach_set([&](isl::set s) { r.push_back(isl_set_get_tuple_name(s.get())); });
  std::sort(r.begin(), r.end());
  return r;
}

ScheduleNode take(const PolyJob& job, const isl::schedule_node& n, const std::vector<int>& ids) {
  using K = ScheduleNode::Kind;
  ScheduleNode r;
  switch (isl_schedule_node_get_type(n.get())) {
    case isl_schedule_node_band: {
      r.kind = K::Band;
      isl::schedule_node_band band = n.as<isl::schedule_node_band>();
      r.permutable = band.permutable();
      auto mupa = isl::manage(isl_schedule_node_band_get_partial_schedule(band.get()));
      for (unsigned i = 0; i < band.n_member(); ++i) {
        BandMember m;
        m.coincident = band.member_get_coincident(int(i));
        isl::union_pw_aff upa = isl::manage(isl_multi_union_pw_aff_get_union_pw_aff(mupa.get(), int(i)));
        m.schedule = isl_text(upa);
        if (i < ids.size()) {
          m.loop_id = ids[i];
          const LoopInfo& li = job.loops.at(ids[i]);
          r.role = li.role;
          m.parallel = li.parallel;
          m.vector_width = li.vector_width;
          m.unroll = li.unroll;
          r.tile_sizes.push_back(li.tile_size);  // 0: this member is not tiled
        }
        r.members.push_back(std::move(m));
      }
      if (std::all_of(r.tile_sizes.begin(), r.tile_sizes.end(), [](int64_t t) { return t == 0; })) r.tile_sizes.clear();
      break;
    }
    case isl_schedule_node_mark: {
      std::string name = mark_name(n);
      std::vector<int> mine = band_mark_ids(name);
      if (!mine.empty() && n.child(0).isa<isl::schedule_node_band>()) return take(job, n.child(0), mine);
      r.kind = K::Mark;
      r.text = name;
      break;
    }
    case isl_schedule_node_domain:
      r.kind = K::Domain;
      r.text = isl_text(isl::manage(isl_schedule_node_domain_get_domain(n.get())));
      break;
    case isl_schedule_node_filter:
      r.kind = K::Filter;
      r.text = isl_text(isl::manage(isl_schedule_node_filter_get_filter(n.get())));
      break;
    case isl_schedule_node_context:
      r.kind = K::Context;
      r.text = isl_text(isl::manage(isl_schedule_node_context_get_context(n.get())));
      break;
    case isl_schedule_node_sequence: r.kind = K::Sequence; break;
    case isl_schedule_node_set: r.kind = K::Set; break;
    case isl_schedule_node_leaf: r.kind = K::Leaf; break;
    case isl_schedule_node_guard: r.kind = K::Guard; break;
    case isl_schedule_node_extension: r.kind = K::Extension; break;
    case isl_schedule_node_expansion: r.kind = K::Expansion; break;
    default: break;
  }
  r.statements = statements_below(n);
  for (unsigned i = 0, c = n.n_children(); i < c; ++i) r.children.push_back(take(job, n.child(int(i)), {}));
  return r;
}

}  // namespace

ScheduleNode snapshot_schedule(const PolyJob& job) { return take(job, job.schedule.root(), {}); }

}  // namespace tcs::poly

namespace tcs {

Expected<bool> schedules_equivalent(std::string_view a, std::string_view b) {
  poly::IslContext isl;
  auto schedule_map = [&](std::string_view text) {
    auto s = poly::manage_maybe(isl_schedule_read_from_str(isl.ctx, std::string(text).c_str()));
    return s.is_null() ? isl::union_map() : poly::manage_maybe(isl_schedule_get_map(s.get()));
  };
  isl::union_map ma = schedule_map(a);
  if (ma.is_null()) return Error{ErrorKind::Internal, "the first schedule is not isl schedule text"};
  isl::union_map mb = schedule_map(b);
  if (mb.is_null()) return Error{ErrorKind::Internal, "the second schedule is not isl schedule text"};
  isl_bool eq = isl_union_map_is_equal(ma.get(), mb.get());
  if (eq == isl_bool_error) return Error{ErrorKind::Internal, "isl could not compare the schedules"};
  return eq == isl_bool_true;
}

}  // namespace tcs

