#include "loopnest/Accesses.h"

#include "loopnest/Affine.h"

namespace tcs {

namespace {

void reads(const ast::Expr& e, const SemaStmt& st, std::vector<TensorAccess>& out) {
  if ((e.kind == ast::ExprKind::Access || e.kind == ast::ExprKind::Name) && e.ref == ast::NameRef::Tensor && e.ref_id >= 0) {
    TensorAccess r;
    r.tensor = e.ref_id;
    for (const auto& arg : e.args) {
      SubscriptForm f;
      for (const AccessConstraint& c : st.constraints)
        if (c.subscript == arg.get() && c.affine && !c.data_dependent) f = {true, c.coefs, c.rest};
      r.subscripts.push_back(std::move(f));
    }
    out.push_back(std::move(r));
  }
  for (const auto& a : e.args) reads(*a, st, out);
}

struct Enclosing {
  int loop_id, iter;
};

class AccessWalker {
 public:
  AccessWalker(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest) : def_(def), shapes_(shapes), nest_(nest) {}

  std::vector<StatementAccesses> run() {
    walk(nest_.root);
    return std::move(out_);
  }

 private:
  void walk(const LoopNode& n) {
    if (n.kind == LoopNode::Kind::For) loops_.push_back({n.loop_id, n.iter});
    if (n.kind == LoopNode::Kind::Call) call(n);
    for (const LoopNode& c : n.children) walk(c);
    for (const LoopNode& c : n.else_children) walk(c);
    if (n.kind == LoopNode::Kind::For) loops_.pop_back();
  }

  void call(const LoopNode& n) {
    StatementAccesses s;
    s.stmt = n.stmt;
    s.source_stmt = nest_.stmts[size_t(n.stmt)].source_stmt;
    for (const Enclosing& e : loops_) s.loops.push_back(e.loop_id);
    for (TensorAccess& a : statement_accesses(def_, nest_.stmts[size_t(n.stmt)])) s.accesses.push_back(finish(std::move(a), n));
    out_.push_back(std::move(s));
  }

  // Strides: d(address)/d(loop) = sum over dimensions of stride(dim) * sum over the
  // subscript's indices of coef * d(index)/d(loop), the last from the call's arguments.
  TensorAccess finish(TensorAccess a, const LoopNode& call) {
    std::vector<int64_t> strides = shapes_.tensors[size_t(a.tensor)].strides();
    for (const Enclosing& l : loops_) {
      LoopStride ls{l.loop_id, 0};
      for (size_t d = 0; d < a.subscripts.size() && ls.elements; ++d) {
        if (!a.subscripts[d].affine) {
          ls.elements.reset();
          break;
        }
        for (const auto& [index, coef] : a.subscripts[d].coefs) {
          std::optional<int64_t> moves =
              size_t(index) < call.args.size() ? iter_coefficient(call.args[size_t(index)], l.iter) : std::nullopt;
          if (!moves) {
            ls.elements.reset();
            break;
          }
          *ls.elements += strides[d] * coef * *moves;
        }
      }
      a.strides.push_back(ls);
    }
    return a;
  }

  const SemaDef& def_;
  const DefShapes& shapes_;
  const LoopNest& nest_;
  std::vector<Enclosing> loops_;
  std::vector<StatementAccesses> out_;
};

}  // namespace

std::vector<TensorAccess> statement_accesses(const SemaDef& def, const PolyStmt& ps) {
  const SemaStmt& st = def.stmts[size_t(ps.source_stmt)];
  std::vector<TensorAccess> out;
  // The write: the left-hand side's subscripts are its indices.
  TensorAccess w;
  w.tensor = st.lhs_tensor;
  w.write = true;
  for (int i = 0; i < st.lhs_rank; ++i) w.subscripts.push_back({true, {{i, 1}}, {}});
  out.push_back(std::move(w));
  if (!ps.is_init) reads(st.value(), st, out);
  return out;
}

std::vector<StatementAccesses> loop_nest_accesses(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest) {
  return AccessWalker(def, shapes, nest).run();
}

}  // namespace tcs
