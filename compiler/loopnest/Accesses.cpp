#include "loopnest/Accesses.h"

#include "loopnest/Affine.h"

namespace tcs {

namespace {

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
    const PolyStmt& ps = nest_.stmts[size_t(n.stmt)];
    const SemaStmt& st = def_.stmts[size_t(ps.source_stmt)];
    StatementAccesses s;
    s.stmt = n.stmt;
    s.source_stmt = ps.source_stmt;
    for (const Enclosing& e : loops_) s.loops.push_back(e.loop_id);
    // The write: the left-hand side's subscripts are its indices.
    TensorAccess w;
    w.tensor = st.lhs_tensor;
    w.write = true;
    for (int i = 0; i < st.lhs_rank; ++i) w.subscripts.push_back({true, {{i, 1}}});
    s.accesses.push_back(finish(std::move(w), n));
    if (!ps.is_init) reads(st.value(), st, n, s);
    out_.push_back(std::move(s));
  }

  void reads(const ast::Expr& e, const SemaStmt& st, const LoopNode& n, StatementAccesses& s) {
    if ((e.kind == ast::ExprKind::Access || e.kind == ast::ExprKind::Name) && e.ref == ast::NameRef::Tensor && e.ref_id >= 0) {
      TensorAccess r;
      r.tensor = e.ref_id;
      for (const auto& arg : e.args) {
        SubscriptForm f;
        for (const AccessConstraint& c : st.constraints)
          if (c.subscript == arg.get() && c.affine && !c.data_dependent) f = {true, c.coefs};
        r.subscripts.push_back(std::move(f));
      }
      s.accesses.push_back(finish(std::move(r), n));
    }
    for (const auto& a : e.args) reads(*a, st, n, s);
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

std::vector<StatementAccesses> loop_nest_accesses(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest) {
  return AccessWalker(def, shapes, nest).run();
}

}  // namespace tcs
