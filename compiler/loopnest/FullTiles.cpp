#include "loopnest/FullTiles.h"

#include "loopnest/Affine.h"

namespace tcs {
namespace {

// The register loops directly nested in `n` (a perfect nest), innermost last.
std::vector<LoopNode*> register_chain(LoopNode& n) {
  std::vector<LoopNode*> chain;
  LoopNode* cur = &n;
  while (cur->children.size() == 1 && cur->children[0].kind == LoopNode::Kind::For &&
         cur->children[0].annot.register_tile) {
    cur = &cur->children[0];
    chain.push_back(cur);
  }
  return chain;
}

// For a loop from `init` to min(a, b) where one side is a constant distance from init:
// that side (the full tile's bound) and the other one.
bool split_min(const LExpr& init, const LExpr& upper, LExpr& full, LExpr& other) {
  if (upper.op != LExpr::Op::Min) return false;
  for (int i = 0; i < 2; ++i)
    if (constant_span(init, upper.args[size_t(i)])) {
      full = upper.args[size_t(i)];
      other = upper.args[size_t(1 - i)];
      return true;
    }
  return false;
}

void visit(std::vector<LoopNode>& nodes) {
  for (LoopNode& n : nodes) {
    visit(n.children);
    visit(n.else_children);
    if (n.kind != LoopNode::Kind::For || !n.annot.accumulate_in_registers) continue;
    std::vector<LoopNode*> chain = register_chain(n);
    LoopNode full = n;
    std::vector<LoopNode*> full_chain = register_chain(full);
    LExpr cond;
    bool any = false;
    for (size_t i = 0; i < chain.size(); ++i) {
      LExpr full_bound, other;
      if (!split_min(chain[i]->init, chain[i]->upper, full_bound, other)) continue;
      LExpr c = LExpr::make(LExpr::Op::Ge, {other, full_bound});
      cond = any ? LExpr::make(LExpr::Op::And, {cond, c}) : c;
      any = true;
      full_chain[i]->upper = full_bound;
    }
    if (!any) continue;
    LoopNode guard;
    guard.kind = LoopNode::Kind::If;
    guard.cond = cond;
    guard.children.push_back(std::move(full));
    guard.else_children.push_back(std::move(n));
    n = std::move(guard);
  }
}

}  // namespace

void separate_full_register_tiles(LoopNest& nest) { visit(nest.root.children); }

}  // namespace tcs
