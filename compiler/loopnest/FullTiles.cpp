#include "loopnest/FullTiles.h"

#include <algorithm>

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
// every register loop runs its whole span, and the original for the edge: a loop clamped
// at the domain's end, or at both ends of a cache tile it straddles (clamped_tile). The
// test goes outside the outermost accumulating loop that does not move the edge, so a
// convolution's c, kh and kw loops all sit inside one full tile.
bool split(LoopNode& n, const std::vector<const LoopNode*>& around) {
  // The loop `depth` only-children below `root`.
  auto below = [](LoopNode& root, size_t depth) {
    LoopNode* l = &root;
    for (size_t d = 0; d < depth; ++d) l = &l->children[0];
    return l;
  };
  std::vector<const LoopNode*> reds = accumulating_loops(n);
  std::vector<LoopNode*> chain = register_chain(*below(n, reds.size() - 1));
  std::vector<const LoopNode*> accumulating = around;  // every accumulating loop around the tile
  accumulating.insert(accumulating.end(), reds.begin(), reds.end());
  std::optional<LExpr> cond;
  std::vector<std::pair<size_t, ClampedTile>> bounds;  // register loop, its full tile
  for (size_t i = 0; i < chain.size(); ++i) {
    auto bound = clamped_tile(chain[i]->init, chain[i]->upper);
    if (!bound) continue;
    // One clamped at its start too (a register tile straddling two cache tiles) only where
    // the test can go outside every accumulating loop: a padded convolution's taps clamp
    // the rows they read at both ends, and tested per tap its kernel ran 0.85-0.9x.
    if (chain[i]->init.op == LExpr::Op::Max &&
        std::any_of(bound->conditions.begin(), bound->conditions.end(), [&](const auto& c) {
          return moves_with(c.first, accumulating) || moves_with(c.second, accumulating);
        }))
      continue;
    for (const auto& [at_least, than] : bound->conditions) {
      LExpr c = LExpr::make(LExpr::Op::Ge, {at_least, than});
      cond = cond ? LExpr::make(LExpr::Op::And, {*cond, c}) : c;
    }
    bounds.emplace_back(i, *bound);
  }
  if (bounds.empty()) return false;
  for (size_t outer = 0; outer < reds.size(); ++outer) {
    std::vector<const LoopNode*> inside(reds.begin() + long(outer), reds.end());
    bool movable = true;
    for (const auto& [i, b] : bounds) movable = movable && !moves_with(b.init, inside) && !moves_with(b.upper, inside);
    for (const auto& [i, b] : bounds)
      for (const auto& [at_least, than] : b.conditions)
        movable = movable && !moves_with(at_least, inside) && !moves_with(than, inside);
    if (!movable) continue;
    LoopNode& at = *below(n, outer);
    LoopNode full = at;
    std::vector<LoopNode*> full_chain = register_chain(*below(full, reds.size() - 1 - outer));
    for (const auto& [i, b] : bounds) full_chain[i]->init = b.init, full_chain[i]->upper = b.upper;
    LoopNode guard;
    guard.kind = LoopNode::Kind::If;
    guard.cond = *cond;
    guard.children.push_back(std::move(full));
    guard.else_children.push_back(std::move(at));
    at = std::move(guard);
    return true;
  }
  return false;
}

// `around`: the accumulating loops around `nodes`.
void visit(std::vector<LoopNode>& nodes, std::vector<const LoopNode*>& around) {
  for (LoopNode& n : nodes) {
    bool accumulates = n.kind == LoopNode::Kind::For && n.annot.accumulate_in_registers;
    if (accumulates && split(n, around)) continue;
    if (accumulates) around.push_back(&n);
    visit(n.children, around);
    visit(n.else_children, around);
    if (accumulates) around.pop_back();
  }
}

}  // namespace

void separate_full_register_tiles(LoopNest& nest) {
  std::vector<const LoopNode*> around;
  visit(nest.root.children, around);
}

std::vector<const LoopNode*> accumulating_loops(const LoopNode& n) {
  std::vector<const LoopNode*> reds = {&n};
  for (const LoopNode* cur = &n; cur->children.size() == 1 && cur->children[0].kind == LoopNode::Kind::For &&
                                 cur->children[0].annot.accumulate_in_registers && !cur->children[0].annot.register_tile;)
    reds.push_back(cur = &cur->children[0]);
  return reds;
}

}  // namespace tcs
