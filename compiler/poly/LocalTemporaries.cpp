// Pass 7 (CPU target): temporaries that live within one iteration of a loop. Once a
// softmax or a layernorm runs as one loop over rows (poly/OuterFusion.cpp), each row's
// temporaries (the row maximum, the centred row, its variance) are written and read within
// that row's iteration and by no other. Such a temporary gets a "pack" mark just inside
// the outermost loop for which that holds, marked local: the AST pass computes the box one
// iteration touches, and the code keeps the box in a buffer on the stack of the thread
// running it, which every access below uses; nothing is copied in or out and the full-size
// tensor is never touched. A row of 4 KiB stays in L1 instead of streaming through memory
// twice, and two threads no longer share it.
#include "poly/PolyJob.h"

namespace tcs::poly {
namespace {

// Whether every element some read of the temporary finds was written before, in textual
// order: a read with no such write sees the zeros the full-size tensor starts with, which
// a stack buffer would not have.
bool written_before_read(const PolyJob& job, const isl::union_map& reads, const isl::union_map& writes) {
  isl_union_access_info* info = isl_union_access_info_from_sink(reads.copy());
  info = isl_union_access_info_set_must_source(info, writes.copy());
  info = isl_union_access_info_set_schedule(info, job.initial.copy());
  auto flow = manage_maybe(isl_union_access_info_compute_flow(info));
  if (flow.is_null()) return false;
  return isl::manage(isl_union_flow_get_may_no_source(flow.get())).is_empty();
}

// Whether the elements one value of `prefix` touches have a box of known size within the
// bound, apart from those of every other value.
bool private_to_iteration(const PolyJob& job, int t, const isl::union_map& prefix, const isl::union_map& accesses) {
  isl::union_map per_iteration = prefix.reverse().apply_range(accesses);
  if (per_iteration.is_empty() || !per_iteration.reverse().is_single_valued()) return false;
  if (isl_union_map_n_map(per_iteration.get()) != 1) return false;
  isl::map m = isl::manage(isl_map_from_union_map(per_iteration.copy()));
  auto hull = manage_maybe(isl_map_get_range_simple_fixed_box_hull(m.get()));
  if (hull.is_null() || isl_fixed_box_is_valid(hull.get()) != isl_bool_true) return false;
  auto size = isl::manage(isl_fixed_box_get_size(hull.get()));
  int64_t bytes = scalar_type_bytes(job.def.tensors[size_t(t)].type);
  for (int d = 0, n = int(isl_multi_val_size(size.get())); d < n; ++d) {
    bytes *= isl_val_get_num_si(isl::manage(isl_multi_val_get_at(size.get(), d)).get());
    if (bytes > kMaxLocalBufferBytes) return false;
  }
  return true;
}

// Places the mark for temporary `t` below the outermost marked band over all its
// accesses whose iterations keep it apart; returns the node at `node`'s position.
// `accessing`: the instances that access it.
isl::schedule_node place(PolyJob& job, int t, const isl::union_map& accesses, const isl::union_set& accessing,
                         isl::schedule_node node, bool& placed) {
  if (node.isa<isl::schedule_node_mark>() && node.child(0).isa<isl::schedule_node_band>() &&
      !band_mark_ids(mark_name(node)).empty()) {
    if (!accessing.is_subset(node_domain(node))) return node;  // some access is elsewhere
    // A band of one iteration is no loop (isl generates none): below it isl generated the
    // marked subtree in pieces, a buffer for each, and log_softmax read its row maximum
    // from one nothing had written. Bands further down may still hold every access.
    isl::schedule_node_band band = node.child(0).as<isl::schedule_node_band>();
    std::vector<int> ids = band_mark_ids(mark_name(node));
    bool loops = false;
    for (size_t i = 0; i < ids.size(); ++i)
      loops = loops || (!job.loops[ids[i]].fixed && band_member_span(band, int(i), &job.context) != 1);
    isl::schedule_node inside = node.child(0).child(0);
    auto prefix = isl::manage(isl_schedule_node_get_prefix_schedule_union_map(inside.get()));
    if (loops && private_to_iteration(job, t, prefix, accesses)) {
      placed = true;
      const std::string& name = job.def.tensors[size_t(t)].name;
      job.packs.push_back({PackRequest{name, 0, {}}, "the local copy of '" + name + "'", nullptr, true});
      return insert_named_mark(inside, "pack" + std::to_string(job.packs.size() - 1)).parent().parent();
    }
  }
  for (unsigned i = 0, n = node.n_children(); i < n && !placed; ++i)
    node = place(job, t, accesses, accessing, node.child(int(i)), placed).parent();
  return node;
}

}  // namespace

void localize_temporaries(PolyJob& job) {
  if (job.symbolic_sizes) return;  // boxes that grow with the sizes stay in the tensors
  for (size_t t = 0; t < job.def.tensors.size(); ++t) {
    if (job.def.tensors[t].role != TensorRole::Temporary) continue;
    const std::string& name = job.def.tensors[t].name;
    isl::union_map reads = accesses_of(job.reads, name), writes = accesses_of(job.writes, name);
    if (writes.is_empty() || !written_before_read(job, reads, writes)) continue;
    job.fed_temporaries.push_back(int(t));
    bool placed = false;
    isl::union_map accesses = reads.unite(writes);
    job.schedule = place(job, int(t), accesses, accesses.domain(), job.schedule.root(), placed).schedule();
  }
}

}  // namespace tcs::poly
