#include "loopnest/EdgeGuards.h"

#include <algorithm>
#include <optional>
#include <set>

#include "loopnest/Accesses.h"
#include "loopnest/Affine.h"

namespace tcs {
namespace {

using Op = LExpr::Op;

bool same(const LExpr& a, const LExpr& b) {
  if (a.op != b.op || a.value != b.value || a.args.size() != b.args.size()) return false;
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!same(a.args[i], b.args[i])) return false;
  return true;
}

bool uses_iter(const LExpr& e, int iter) {
  if (e.op == Op::Iter && e.value == iter) return true;
  for (const LExpr& a : e.args)
    if (uses_iter(a, iter)) return true;
  return false;
}

// The tensors each statement of the nest (LoopNest::stmts index) reads and writes.
struct Touches {
  std::set<int> reads, writes;
  void add(const Touches& t) {
    reads.insert(t.reads.begin(), t.reads.end());
    writes.insert(t.writes.begin(), t.writes.end());
  }
  // Neither writes what the other reads or writes: the two run in either order.
  bool commutes_with(const Touches& o) const {
    auto meets = [](const std::set<int>& a, const std::set<int>& b) {
      for (int x : a)
        if (b.count(x)) return true;
      return false;
    };
    return !meets(writes, o.writes) && !meets(writes, o.reads) && !meets(reads, o.writes);
  }
};

class Hoister {
 public:
  Hoister(const SemaDef& def, const DefShapes& shapes, LoopNest& nest) : nest_(nest), stmts_(nest.stmts.size()) {
    for (const StatementAccesses& s : loop_nest_accesses(def, shapes, nest))
      for (const TensorAccess& a : s.accesses) (a.write ? stmts_[size_t(s.stmt)].writes : stmts_[size_t(s.stmt)].reads).insert(a.tensor);
  }

  void run() { visit(nest_.root.children); }

 private:
  Touches touches(const LoopNode& n) const {
    Touches t;
    if (n.kind == LoopNode::Kind::Call) t = stmts_[size_t(n.stmt)];
    if (n.kind == LoopNode::Kind::Pack) {  // a copy reads its tensor; a local part stands for it
      const PackSite& p = nest_.packs[size_t(n.pack)];
      t.reads.insert(p.tensor);
      if (p.local) t.writes.insert(p.tensor);
    }
    for (const LoopNode& c : n.children) t.add(touches(c));
    for (const LoopNode& c : n.else_children) t.add(touches(c));
    return t;
  }

  bool mentions(const LoopNode& n, int iter) const {
    if (uses_iter(n.init, iter) || uses_iter(n.upper, iter) || uses_iter(n.cond, iter)) return true;
    for (const LExpr& a : n.args)
      if (uses_iter(a, iter)) return true;
    if (n.kind == LoopNode::Kind::Pack)
      for (const LExpr& o : nest_.packs[size_t(n.pack)].offset)
        if (uses_iter(o, iter)) return true;
    for (const LoopNode& c : n.children)
      if (mentions(c, iter)) return true;
    for (const LoopNode& c : n.else_children)
      if (mentions(c, iter)) return true;
    return false;
  }

  // `n` when it is an If that holds only where iter == at and says nothing else about
  // iter: the rest of its condition (empty: none), else nullopt.
  std::optional<std::vector<LExpr>> pinned(const LoopNode& n, int iter, const LExpr& at) const {
    if (n.kind != LoopNode::Kind::If || !n.else_children.empty()) return std::nullopt;
    std::vector<LExpr> terms, rest;
    auto split = [&](auto&& self, const LExpr& e) -> void {
      if (e.op == Op::And)
        for (const LExpr& a : e.args) self(self, a);
      else
        terms.push_back(e);
    };
    split(split, n.cond);
    bool found = false;
    for (const LExpr& t : terms) {
      bool is_pin = t.op == Op::Eq && t.args.size() == 2 &&
                    ((t.args[0].op == Op::Iter && t.args[0].value == iter && same(t.args[1], at)) ||
                     (t.args[1].op == Op::Iter && t.args[1].value == iter && same(t.args[0], at)));
      if (is_pin && !found) found = true;
      else if (uses_iter(t, iter)) return std::nullopt;
      else rest.push_back(t);
    }
    for (const LoopNode& c : n.children)
      if (mentions(c, iter)) return std::nullopt;
    if (!found) return std::nullopt;
    return rest;
  }

  // The work of If `n` under the rest of its condition: its members, or `n` itself.
  static void append_guarded(std::vector<LoopNode>& out, LoopNode n, const std::vector<LExpr>& rest) {
    if (rest.empty()) {
      for (LoopNode& c : n.children) out.push_back(std::move(c));
      return;
    }
    n.cond = rest[0];
    for (size_t i = 1; i < rest.size(); ++i) n.cond = LExpr::make(Op::And, {n.cond, rest[i]});
    out.push_back(std::move(n));
  }

  // The members of loop `f`'s body pinned to its first iteration (from the front) or its
  // last (from the back) that commute with what the body does before (after) them on
  // that iteration, taken out of the body in their order.
  std::vector<LoopNode> take_edge(LoopNode& f, bool first) {
    std::vector<std::pair<LoopNode, std::vector<LExpr>>> taken;  // each with the rest of its condition
    Touches passed;  // the members the scan went by
    std::vector<LoopNode>& body = f.children;
    for (size_t k = 0; k < body.size(); ++k) {
      size_t i = first ? k : body.size() - 1 - k;
      auto rest = pinned(body[i], f.iter, first ? f.init : f.upper);
      Touches t = touches(body[i]);
      if (rest && t.commutes_with(passed)) {
        taken.emplace_back(std::move(body[i]), std::move(*rest));
        body.erase(body.begin() + long(i));
        --k;  // from the front or the back, the same k names the next member now
        continue;
      }
      passed.add(t);
    }
    if (!first) std::reverse(taken.begin(), taken.end());
    std::vector<LoopNode> out;
    for (auto& [n, rest] : taken) append_guarded(out, std::move(n), rest);
    return out;
  }

  void visit(std::vector<LoopNode>& siblings) {
    for (size_t k = 0; k < siblings.size(); ++k) {
      visit(siblings[k].children);
      visit(siblings[k].else_children);
      LoopNode& f = siblings[k];
      if (f.kind != LoopNode::Kind::For || f.stride != 1) continue;
      std::optional<int64_t> span = constant_span(f.init, f.upper);
      if (span && *span < 0) continue;  // never runs
      std::vector<LoopNode> before = take_edge(f, true), after = take_edge(f, false);
      if (before.empty() && after.empty()) continue;
      // Work the loop ran only when it ran at all: kept under that condition when the
      // trip count is not a known positive number.
      auto when_it_runs = [&](std::vector<LoopNode> nodes) {
        if (span || nodes.empty()) return nodes;
        LoopNode guard;
        guard.kind = LoopNode::Kind::If;
        guard.cond = LExpr::make(Op::Le, {f.init, f.upper});
        guard.children = std::move(nodes);
        return std::vector<LoopNode>{std::move(guard)};
      };
      before = when_it_runs(std::move(before));
      after = when_it_runs(std::move(after));
      const bool empty = f.children.empty();
      size_t at = k;
      if (empty) siblings.erase(siblings.begin() + long(k));
      else ++at;
      siblings.insert(siblings.begin() + long(at), std::make_move_iterator(after.begin()), std::make_move_iterator(after.end()));
      siblings.insert(siblings.begin() + long(k), std::make_move_iterator(before.begin()), std::make_move_iterator(before.end()));
      k += before.size() + after.size() - (empty ? 1 : 0);
    }
  }

  LoopNest& nest_;
  std::vector<Touches> stmts_;
};

}  // namespace

void hoist_edge_guards(const SemaDef& def, const DefShapes& shapes, LoopNest& nest) { Hoister(def, shapes, nest).run(); }

}  // namespace tcs
