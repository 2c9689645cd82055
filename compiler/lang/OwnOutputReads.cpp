#include "lang/OwnOutputReads.h"

#include <functional>

#include "lang/Linear.h"

namespace tcs {
namespace {

bool is_read_of(const ast::Expr& e, int t) {
  return (e.kind == ast::ExprKind::Access || e.kind == ast::ExprKind::Name) && e.ref == ast::NameRef::Tensor && e.ref_id == t;
}

// Calls `visit` on every read of tensor `t` in `e`, in order, until it returns true.
bool each_read(const ast::Expr& e, int t, const std::function<bool(const ast::Expr&)>& visit) {
  if (is_read_of(e, t) && visit(e)) return true;
  for (const auto& a : e.args)
    if (each_read(*a, t, visit)) return true;
  return false;
}

// Whether read `r` of the left-hand tensor names the element the statement writes: in
// every dimension the subscript is that left-hand index (Same), or in some dimension it is
// that index plus a nonzero constant (Apart), or neither can be told from the subscripts
// alone (Maybe).
enum class Overlap { Same, Apart, Maybe };
Overlap overlap(const ast::Expr& r, int lhs_rank) {
  if (int(r.args.size()) != lhs_rank) return Overlap::Maybe;
  bool same = true;
  for (int d = 0; d < lhs_rank; ++d) {
    Linear l = linearize(*r.args[size_t(d)]);
    bool along = l.affine && !l.data_dependent && l.coefs.size() == 1 && l.coefs.count(d) && l.coefs.at(d) == 1;
    std::optional<int64_t> shift = l.rest.constant();
    if (along && shift && *shift != 0) return Overlap::Apart;
    same = same && along && shift == std::optional<int64_t>(0);
  }
  return same ? Overlap::Same : Overlap::Maybe;
}

}  // namespace

OwnOutputReads own_output_reads(const SemaStmt& s, const ast::Expr& rhs) {
  OwnOutputReads found;
  each_read(rhs, s.lhs_tensor, [&](const ast::Expr& r) {
    Overlap o = overlap(r, s.lhs_rank);
    if (o == Overlap::Same && !found.same) found.same = &r;
    if (o == Overlap::Maybe && !found.maybe) found.maybe = &r;
    return false;
  });
  return found;
}

const ast::Expr* first_read(const ast::Expr& e, int t) {
  const ast::Expr* found = nullptr;
  each_read(e, t, [&](const ast::Expr& r) {
    found = &r;
    return true;
  });
  return found;
}

}  // namespace tcs
