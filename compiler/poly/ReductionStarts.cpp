// Part of the schedule pass: where each reduction first reaches its left-hand elements.
//
// A sum kept in registers loads its accumulators from the tensor that the initialisation
// zeroed in a nest of its own: one more pass over the output, written and read back from
// memory (a fifth of a batched matmul's traffic, more of a convolution's). When the
// schedule reaches every element first at the same summed-index values, a backend can
// start the accumulators there from the identity and skip that nest. This pass says
// where, per reduction (PolyStmt::reduction_first), when it can show that:
//   - the domain is the initialisation's times a box of summed indices, never empty, so
//     every element the initialisation writes is reached, at the box's lowest corner first
//     if the summed indices only grow along the schedule;
//   - every schedule dimension is a function of the left-hand indices alone, or a positive
//     multiple of one summed index plus a constant. Tiling (floor of a growing value) and
//     permuting point loops keep that order.
// Reads: the statements' domains, the schedule, the context. Sets: stmts[].reduction_first.
#include <optional>

#include "poly/PolyJob.h"

namespace tcs::poly {
namespace {

// The box's lowest corner, when `summed` (a set over the summed indices) is a box that is
// non-empty for every size the context allows, with that corner a constant.
std::optional<std::vector<int64_t>> box_corner(const isl::set& summed, const isl::set& context) {
  isl_size n = isl_set_dim(summed.get(), isl_dim_set);
  if (n <= 0) return std::nullopt;
  isl_set* box = nullptr;
  for (int d = 0; d < n; ++d) {
    isl_set* one = isl_set_project_out(summed.copy(), isl_dim_set, unsigned(d + 1), unsigned(n - d - 1));
    one = isl_set_project_out(one, isl_dim_set, 0, unsigned(d));
    box = box ? isl_set_flat_product(box, one) : one;
  }
  isl::set product = isl::manage(box);
  if (!product.is_equal(summed)) return std::nullopt;
  if (!context.is_subset(summed.params())) return std::nullopt;  // empty for some sizes
  isl::set corner = summed.lexmin();
  std::vector<int64_t> out;
  for (int d = 0; d < n; ++d) {
    isl::val v = isl::manage(isl_set_plain_get_val_if_fixed(corner.get(), isl_dim_set, unsigned(d)));
    if (v.is_null() || !v.is_int()) return std::nullopt;
    out.push_back(v.get_num_si());
  }
  return out;
}

// Whether every dimension of the schedule `m` (of one statement with `lhs` left-hand
// indices first) is a function of those alone, or a positive multiple of one summed index
// alone, and every summed index appears in one.
bool summed_indices_only_grow(const isl::map& m, int lhs) {
  isl_pw_multi_aff* pma = isl_pw_multi_aff_from_map(m.copy());
  isl_multi_aff* ma = nullptr;  // its one piece
  if (pma && isl_pw_multi_aff_n_piece(pma) == 1)
    isl_pw_multi_aff_foreach_piece(
        pma,
        [](isl_set* set, isl_multi_aff* piece, void* user) {
          isl_set_free(set);
          *static_cast<isl_multi_aff**>(user) = piece;
          return isl_stat_ok;
        },
        &ma);
  isl_pw_multi_aff_free(pma);
  if (!ma) return false;
  bool ok = true;
  isl_size in = isl_multi_aff_dim(ma, isl_dim_in), out = isl_multi_aff_dim(ma, isl_dim_out);
  std::vector<bool> seen(size_t(std::max(0, in - lhs)), false);
  for (int j = 0; ok && j < out; ++j) {
    isl_aff* a = isl_multi_aff_get_at(ma, j);
    if (isl_aff_dim(a, isl_dim_div) > 0) ok = false;
    int summed = -1;
    bool others = false;
    for (int i = 0; ok && i < in; ++i) {
      isl_val* c = isl_aff_get_coefficient_val(a, isl_dim_in, i);
      if (!c) ok = false;  // isl failed: no claim
      else if (!isl_val_is_zero(c)) {
        if (i < lhs) others = true;
        else if (summed >= 0 || !isl_val_is_pos(c)) ok = false;
        else summed = i - lhs;
      }
      isl_val_free(c);
    }
    if (summed >= 0 && others) ok = false;
    if (ok && summed >= 0) seen[size_t(summed)] = true;
    isl_aff_free(a);
  }
  isl_multi_aff_free(ma);
  for (bool s : seen) ok = ok && s;
  return ok;
}

isl::set anonymous(const isl::set& s) { return isl::manage(isl_set_reset_tuple_id(s.copy())); }

}  // namespace

void find_reduction_starts(PolyJob& job) {
  isl::union_map schedule = job.schedule.get_map();
  for (size_t i = 0; i < job.stmts.size(); ++i) {
    PolyStmt& s = job.stmts[i];
    s.reduction_first.clear();
    if (s.is_init || i == 0 || !job.stmts[i - 1].is_init || job.stmts[i - 1].source_stmt != s.source_stmt) continue;
    const SemaStmt& st = job.def.stmts[size_t(s.source_stmt)];
    int lhs = st.lhs_rank;
    isl::set domain(job.ctx, job.info.statements[i].domain);
    isl::set init(job.ctx, job.info.statements[i - 1].domain);
    if (int(isl_set_dim(domain.get(), isl_dim_set)) <= lhs) continue;
    isl::set summed = isl::manage(isl_set_project_out(domain.copy(), isl_dim_set, 0, unsigned(lhs)));
    if (!isl::manage(isl_set_flat_product(anonymous(init).release(), summed.copy())).is_equal(anonymous(domain))) continue;
    std::optional<std::vector<int64_t>> corner = box_corner(summed, job.context);
    if (!corner) continue;
    isl::map m = isl::manage(isl_map_from_union_map(schedule.intersect_domain(isl::union_set(domain)).release()));
    if (m.is_null() || !summed_indices_only_grow(m, lhs)) continue;
    s.reduction_first = *corner;
  }
}

}  // namespace tcs::poly
