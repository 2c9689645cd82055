#include "loopnest/FetchAhead.h"

#include <algorithm>
#include <optional>

#include "loopnest/Affine.h"

namespace tcs {
namespace {

// How many register tiles `nodes` run, counting a partial loop as a full one; nullopt
// where a trip count is not known when the code is generated.
std::optional<int64_t> tile_calls(const std::vector<LoopNode>& nodes) {
  int64_t sum = 0;
  for (const LoopNode& n : nodes) {
    std::optional<int64_t> here = 0;
    switch (n.kind) {
      case LoopNode::Kind::For: {
        if (n.annot.accumulate_in_registers) {
          here = 1;
          break;
        }
        std::optional<int64_t> span = full_span(n);
        std::optional<int64_t> inner = tile_calls(n.children);
        if (!span || *span < 0 || !inner) return std::nullopt;
        here = (*span / n.stride + 1) * *inner;
        break;
      }
      case LoopNode::Kind::If: {
        std::optional<int64_t> a = tile_calls(n.children), b = tile_calls(n.else_children);
        if (!a || !b) return std::nullopt;
        here = std::max(*a, *b);
        break;
      }
      case LoopNode::Kind::Block:
      case LoopNode::Kind::Pack: here = tile_calls(n.children); break;
      case LoopNode::Kind::Call: break;
    }
    if (!here) return std::nullopt;
    sum += *here;
  }
  return sum;
}

// The loop whose next iteration copies the next box: the innermost one around the pack
// that moves it. A parallel loop's next iteration may be another thread's, so none then.
// Only a transposing copy: one that keeps the tensor's order streams its rows, which the
// hardware prefetcher already follows, and fetching ahead made sgemm 1024^3 and fc
// 128x1024x1024 1.5-2.5 % slower.
void plan_site(const LoopNode& n, const std::vector<const LoopNode*>& loops, PackSite& p) {
  if (p.local || !p.transposes()) return;
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
    bool moves = false;
    for (const LExpr& o : p.offset) {
      std::optional<int64_t> c = iter_coefficient(o, (*it)->iter);
      if (!c) return;
      moves = moves || *c != 0;
    }
    if (!moves) continue;
    if ((*it)->annot.parallel) return;
    std::optional<int64_t> tiles = tile_calls(n.children);
    if (!tiles || *tiles == 0) return;
    p.ahead_iter = (*it)->iter;
    p.ahead_step = (*it)->stride;
    p.ahead_tiles = *tiles;
    return;
  }
}

void visit(const LoopNode& n, std::vector<const LoopNode*>& loops, LoopNest& nest) {
  if (n.kind == LoopNode::Kind::Pack) plan_site(n, loops, nest.packs[size_t(n.pack)]);
  if (n.kind == LoopNode::Kind::For) loops.push_back(&n);
  for (const LoopNode& c : n.children) visit(c, loops, nest);
  for (const LoopNode& c : n.else_children) visit(c, loops, nest);
  if (n.kind == LoopNode::Kind::For) loops.pop_back();
}

// Loops of at most this many iterations (windows) do not make a loop around them the
// innermost long one.
constexpr int64_t kShortTrip = 8;

bool is_long(const LoopNode& n) {
  std::optional<int64_t> span = full_span(n);  // a partial tile's loop is as long as its full tile's
  return !span || *span / n.stride + 1 > kShortTrip;
}

// Whether `nodes` (through blocks, guards and packs) hold a long loop.
bool has_long_loop(const std::vector<LoopNode>& nodes) {
  for (const LoopNode& n : nodes) {
    if (n.kind == LoopNode::Kind::For && is_long(n)) return true;
    if (has_long_loop(n.children) || has_long_loop(n.else_children)) return true;
  }
  return false;
}

// Whether `nodes` directly hold (through blocks and guards) a long loop with none inside.
bool holds_innermost_long(const std::vector<LoopNode>& nodes) {
  for (const LoopNode& n : nodes) {
    if (n.kind == LoopNode::Kind::For) {
      if (is_long(n) && !has_long_loop(n.children)) return true;
    } else if (n.kind != LoopNode::Kind::Call && (holds_innermost_long(n.children) || holds_innermost_long(n.else_children))) {
      return true;
    }
  }
  return false;
}

void mark_stream_ahead(LoopNode& n, int iterations) {
  if (n.kind == LoopNode::Kind::For && holds_innermost_long(n.children)) n.annot.fetch_ahead = iterations;
  for (LoopNode& c : n.children) mark_stream_ahead(c, iterations);
  for (LoopNode& c : n.else_children) mark_stream_ahead(c, iterations);
}

}  // namespace

void plan_fetch_ahead(LoopNest& nest) {
  std::vector<const LoopNode*> loops;
  visit(nest.root, loops, nest);
}

void plan_stream_ahead(LoopNest& nest, int iterations) {
  if (iterations > 0) mark_stream_ahead(nest.root, iterations);
}

}  // namespace tcs
