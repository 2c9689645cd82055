// Stable node ids: every band carries a mark above it naming one loop id per member
// ("L3_4_5"; isl's id syntax has no commas). Ids come from a counter of the job, so a band keeps its ids through later
// passes, and the ids reach the isl AST, the LoopNest and every generated text.
#include "poly/PolyJob.h"


namespace tcs::poly {

isl::schedule_node_band mark_band(PolyJob& job, isl::schedule_node_band band, LoopRole role,
                                  const std::vector<int64_t>& tile_sizes) {
  std::vector<int> ids;
  for (unsigned i = 0; i < band.n_member(); ++i) {
    int id = job.next_loop_id++;
    LoopInfo info;
    info.role = role;
    info.coincident = band.member_get_coincident(int(i));
    if (i < tile_sizes.size()) info.tile_size = tile_sizes[i];
    job.loops[id] = info;
    ids.push_back(id);
  }
  return band.insert_mark(band_mark_name(ids)).child(0).as<isl::schedule_node_band>();
}

std::string band_mark_name(const std::vector<int>& ids) {
  std::string name = "L";
  for (size_t i = 0; i < ids.size(); ++i) name += (i ? "_" : "") + std::to_string(ids[i]);
  return name;
}

std::vector<int> band_mark_ids(const std::string& mark) {
  std::vector<int> ids;
  if (mark.size() < 2 || mark[0] != 'L') return ids;
  size_t i = 1;
  while (i < mark.size()) {
    size_t j = mark.find('_', i);
    if (j == std::string::npos) j = mark.size();
    try {
      ids.push_back(std::stoi(mark.substr(i, j - i)));  // "L3_4_5"
    } catch (...) {
      return {};
    }
    i = j + 1;
  }
  return ids;
}

int64_t band_member_span(const isl::schedule_node_band& band, int i, const isl::set* context) {
  auto mupa = isl::manage(isl_schedule_node_band_get_partial_schedule(band.get()));
  auto upa = isl::manage(isl_union_pw_aff_intersect_domain(isl_multi_union_pw_aff_get_union_pw_aff(mupa.get(), i),
                                                           isl_schedule_node_get_domain(band.get())));
  if (context) upa = isl::manage(isl_union_pw_aff_intersect_params(upa.release(), context->copy()));
  auto lo = manage_maybe(isl_union_pw_aff_min_val(upa.copy()));
  auto hi = manage_maybe(isl_union_pw_aff_max_val(upa.copy()));
  if (lo.is_null() || hi.is_null() || !isl_val_is_int(lo.get()) || !isl_val_is_int(hi.get())) return 0;
  return isl_val_get_num_si(hi.get()) - isl_val_get_num_si(lo.get()) + 1;
}

int64_t loop_span(PolyJob& job, const isl::schedule_node_band& band, int i, int id) {
  LoopInfo& info = job.loops[id];
  if (info.span < 0) info.span = band_member_span(band, i);
  return info.span;
}

}  // namespace tcs::poly
