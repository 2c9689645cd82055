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

// `n` and the reduction loops nested in it that also keep their accumulators in
// registers (each the only child of the one before), outermost first.
std::vector<LoopNode*> reduction_chain(LoopNode& n) {
  std::vector<LoopNode*> reds = {&n};
  while (reds.back()->children.size() == 1 && reds.back()->children[0].kind == LoopNode::Kind::For &&
         reds.back()->children[0].annot.accumulate_in_registers && !reds.back()->children[0].annot.register_tile)
    reds.push_back(&reds.back()->children[0]);
  return reds;
}

bool uses(const LExpr& e, const std::vector<LoopNode*>& loops) {
  for (const LoopNode* l : loops)
    if (iter_coefficient(e, l->iter) != std::optional<int64_t>(0)) return true;
  return false;
}

// Splits the register tile under `n`'s reduction chain into a full-tile copy, where every
// register loop runs its whole span, and the original for the edge. The test goes
// outside the outermost reduction loop when no reduction loop moves the edge, so a
// convolution's c, kh and kw loops all sit inside one full tile.
bool split(LoopNode& n) {
  std::vector<LoopNode*> reds = reduction_chain(n);
  for (size_t outer = 0; outer < reds.size(); ++outer) {
    std::vector<LoopNode*> chain = register_chain(*reds.back());
    std::vector<LoopNode*> inside(reds.begin() + long(outer), reds.end());
    LExpr cond;
    bool any = false, movable = true;
    std::vector<std::pair<size_t, LExpr>> uppers;
    for (size_t i = 0; i < chain.size(); ++i) {
      auto bound = split_tile_bound(chain[i]->init, chain[i]->upper);
      if (!bound) continue;
      movable = movable && !uses(bound->edge, inside) && !uses(bound->full, inside);
      LExpr c = LExpr::make(LExpr::Op::Ge, {bound->edge, bound->full});
      cond = any ? LExpr::make(LExpr::Op::And, {cond, c}) : c;
      any = true;
      uppers.emplace_back(i, bound->full);
    }
    if (!any) return false;
    if (!movable) continue;
    LoopNode& at = *reds[outer];
    LoopNode full = at;
    LoopNode* inner = &full;
    for (size_t r = outer + 1; r < reds.size(); ++r) inner = &inner->children[0];
    std::vector<LoopNode*> full_chain = register_chain(*inner);
    for (auto& [i, upper] : uppers) full_chain[i]->upper = upper;
    LoopNode guard;
    guard.kind = LoopNode::Kind::If;
    guard.cond = cond;
    guard.children.push_back(std::move(full));
    guard.else_children.push_back(std::move(at));
    at = std::move(guard);
    return true;
  }
  return false;
}

void visit(std::vector<LoopNode>& nodes) {
  for (LoopNode& n : nodes) {
    if (n.kind == LoopNode::Kind::For && n.annot.accumulate_in_registers && split(n)) continue;
    visit(n.children);
    visit(n.else_children);
  }
}

}  // namespace

void separate_full_register_tiles(LoopNest& nest) { visit(nest.root.children); }

}  // namespace tcs
