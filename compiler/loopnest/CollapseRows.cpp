#include "loopnest/CollapseRows.h"

#include <map>

#include "loopnest/Accesses.h"
#include "loopnest/Affine.h"

namespace tcs {
namespace {

bool is_iter(const LExpr& e, int iter) { return e.op == LExpr::Op::Iter && e.value == iter; }

bool ignores(const LExpr& e, int iter) {
  std::optional<int64_t> c = iter_coefficient(e, iter);
  return c && *c == 0;
}

// Whether index `index` appears in `e` outside a tensor's subscripts (a value, as in
// argmin's `X(n, d) == Mn(n) ? d : D`): its values then matter, not only the addresses.
bool used_as_value(const ast::Expr& e, int index, bool in_subscript) {
  if (e.kind == ast::ExprKind::Name && e.ref == ast::NameRef::Index && e.ref_id == index && !in_subscript) return true;
  bool subscripts = in_subscript || (e.kind == ast::ExprKind::Access && e.ref == ast::NameRef::Tensor);
  for (const auto& a : e.args)
    if (used_as_value(*a, index, subscripts)) return true;
  return false;
}

// A loop from 0 to a constant, one step at a time, that no other decision holds in place.
std::optional<int64_t> plain_trips(const LoopNode& n) {
  if (n.kind != LoopNode::Kind::For || n.stride != 1 || !n.init.is_int() || n.init.value != 0 || !n.upper.is_int()) return std::nullopt;
  const LoopAnnotation& a = n.annot;
  if (a.parallel || a.register_tile || a.accumulate_in_registers || a.fetch_ahead > 0) return std::nullopt;
  return n.upper.value + 1;
}

class Collapser {
 public:
  Collapser(const SemaDef& def, const DefShapes& shapes, LoopNest& nest, int lanes)
      : def_(def), shapes_(shapes), nest_(nest), lanes_(lanes) {}

  void run() {
    if (!nest_.packs.empty()) return;  // a packed read's address is the buffer's, not the tensor's
    for (bool changed = true; changed;) {
      accesses_.clear();
      std::vector<StatementAccesses> all = loop_nest_accesses(def_, shapes_, nest_);
      size_t next = 0;
      index_calls(nest_.root, all, next);
      changed = visit(nest_.root);
    }
  }

 private:
  // The accesses of each call node, walked in loop_nest_accesses' order.
  void index_calls(const LoopNode& n, const std::vector<StatementAccesses>& all, size_t& next) {
    if (n.kind == LoopNode::Kind::Call && next < all.size()) accesses_[&n] = &all[next++];
    for (const LoopNode& c : n.children) index_calls(c, all, next);
    for (const LoopNode& c : n.else_children) index_calls(c, all, next);
  }

  // Collapses the first pair found below `n`; the accesses are stale after that.
  bool visit(LoopNode& n) {
    if (n.kind == LoopNode::Kind::For && n.children.size() == 1 && collapse(n)) return true;
    for (LoopNode& c : n.children)
      if (visit(c)) return true;
    for (LoopNode& c : n.else_children)
      if (visit(c)) return true;
    return false;
  }

  bool collapse(LoopNode& outer) {
    LoopNode& inner = outer.children[0];
    std::optional<int64_t> rows = plain_trips(outer), row = plain_trips(inner);
    if (!rows || !row || outer.annot.vector_width > 0 || outer.annot.unroll != 0 || inner.children.empty()) return false;
    std::vector<std::pair<int, int>> moved;  // per call: the indices the two loops give
    for (const LoopNode& call : inner.children) {
      std::optional<std::pair<int, int>> m = call.kind == LoopNode::Kind::Call ? indices_of(call, outer, inner, *row) : std::nullopt;
      if (!m) return false;
      moved.push_back(*m);
    }
    for (size_t k = 0; k < inner.children.size(); ++k) inner.children[k].args[size_t(moved[k].first)] = LExpr::integer(0);
    inner.upper = LExpr::integer(*rows * *row - 1);
    // A vector as wide as the short row it had (a row of 7 in 8 lanes) takes the kernel's.
    if (int& w = inner.annot.vector_width; w > 0 && w < lanes_ && w >= *row) w = lanes_;
    LoopNode merged = std::move(inner);
    outer = std::move(merged);
    return true;
  }

  // The statement indices that `outer` and `inner` give the call (each an index of its
  // own, passed as the plain iterator), when every address the call touches moves by
  // `row` times as much with `outer` as with `inner`, and nothing else depends on them.
  std::optional<std::pair<int, int>> indices_of(const LoopNode& call, const LoopNode& outer, const LoopNode& inner, int64_t row) {
    int a = -1, b = -1;
    for (size_t i = 0; i < call.args.size(); ++i) {
      const LExpr& arg = call.args[i];
      if (is_iter(arg, outer.iter) && a < 0) a = int(i);
      else if (is_iter(arg, inner.iter) && b < 0) b = int(i);
      else if (!ignores(arg, outer.iter) || !ignores(arg, inner.iter)) return std::nullopt;
    }
    if (a < 0 || b < 0) return std::nullopt;
    const PolyStmt& ps = nest_.stmts[size_t(call.stmt)];
    const SemaStmt& st = def_.stmts[size_t(ps.source_stmt)];
    for (const AccessConstraint& c : st.constraints)
      if (c.checked_when_run()) return std::nullopt;  // checked per dimension when it runs
    if (!ps.is_init && (used_as_value(st.value(), a, false) || used_as_value(st.value(), b, false))) return std::nullopt;
    // A reduction that starts from the identity where both indices are 0 still does: the
    // collapsed index is 0 exactly there.
    for (int i : {a, b})
      if (i >= st.lhs_rank && size_t(i - st.lhs_rank) < ps.reduction_first.size() && ps.reduction_first[size_t(i - st.lhs_rank)] != 0)
        return std::nullopt;
    auto found = accesses_.find(&call);
    if (found == accesses_.end()) return std::nullopt;
    for (const TensorAccess& t : found->second->accesses) {
      std::optional<int64_t> by_outer, by_inner;
      for (const LoopStride& s : t.strides) {
        if (s.loop_id == outer.loop_id) by_outer = s.elements;
        if (s.loop_id == inner.loop_id) by_inner = s.elements;
      }
      if (!by_outer || !by_inner || *by_outer != row * *by_inner) return std::nullopt;
    }
    return std::pair{a, b};
  }

  const SemaDef& def_;
  const DefShapes& shapes_;
  LoopNest& nest_;
  int lanes_;
  std::map<const LoopNode*, const StatementAccesses*> accesses_;
};

}  // namespace

void collapse_rows(const SemaDef& def, const DefShapes& shapes, LoopNest& nest, int lanes) {
  Collapser(def, shapes, nest, lanes).run();
}

}  // namespace tcs
