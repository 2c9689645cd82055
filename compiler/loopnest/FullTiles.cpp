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
      auto bound = split_tile_bound(chain[i]->init, chain[i]->upper);
      if (!bound) continue;
      LExpr c = LExpr::make(LExpr::Op::Ge, {bound->edge, bound->full});
      cond = any ? LExpr::make(LExpr::Op::And, {cond, c}) : c;
      any = true;
      full_chain[i]->upper = bound->full;
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
