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

// Splits the register tile under `n`'s accumulating loops into a full-tile copy, where
// every register loop runs its whole span, and the original for the edge. The test goes
// outside the outermost accumulating loop that does not move the edge, so a
// convolution's c, kh and kw loops all sit inside one full tile.
bool split(LoopNode& n) {
  // The loop `depth` only-children below `root`.
  auto below = [](LoopNode& root, size_t depth) {
    LoopNode* l = &root;
    for (size_t d = 0; d < depth; ++d) l = &l->children[0];
    return l;
  };
  std::vector<const LoopNode*> reds = accumulating_loops(n);
  std::vector<LoopNode*> chain = register_chain(*below(n, reds.size() - 1));
  LExpr cond;
  std::vector<std::pair<size_t, TileBound>> bounds;  // register loop, its split
  for (size_t i = 0; i < chain.size(); ++i) {
    auto bound = split_tile_bound(chain[i]->init, chain[i]->upper);
    if (!bound) continue;
    LExpr c = LExpr::make(LExpr::Op::Ge, {bound->edge, bound->full});
    cond = bounds.empty() ? c : LExpr::make(LExpr::Op::And, {cond, c});
    bounds.emplace_back(i, *bound);
  }
  if (bounds.empty()) return false;
  for (size_t outer = 0; outer < reds.size(); ++outer) {
    std::vector<const LoopNode*> inside(reds.begin() + long(outer), reds.end());
    bool movable = true;
    for (const auto& [i, b] : bounds) movable = movable && !moves_with(b.edge, inside) && !moves_with(b.full, inside);
    if (!movable) continue;
    LoopNode& at = *below(n, outer);
    LoopNode full = at;
    std::vector<LoopNode*> full_chain = register_chain(*below(full, reds.size() - 1 - outer));
    for (const auto& [i, b] : bounds) full_chain[i]->upper = b.full;
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

std::vector<const LoopNode*> accumulating_loops(const LoopNode& n) {
  std::vector<const LoopNode*> reds = {&n};
  for (const LoopNode* cur = &n; cur->children.size() == 1 && cur->children[0].kind == LoopNode::Kind::For &&
                                 cur->children[0].annot.accumulate_in_registers && !cur->children[0].annot.register_tile;)
    reds.push_back(cur = &cur->children[0]);
  return reds;
}

}  // namespace tcs
