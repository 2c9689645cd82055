#include "loopnest/JoinParallelLoops.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "loopnest/Affine.h"
#include "loopnest/Footprints.h"

namespace tcs {
namespace {

// Past this many iterations a hand-off weighs little against a loop's work, and the
// check, which compares every pair of iterations, would grow with their square.
constexpr int64_t kMaxIterations = 256;

// Neither writes what the other reads or writes.
bool apart(const Footprint& a, const Footprint& b) {
  return !meet(a.writes, b.writes) && !meet(a.writes, b.reads) && !meet(a.reads, b.writes);
}

// A loop the pool runs and nothing else: no vectors, registers or partial totals of its own.
bool plain_parallel(const LoopNode& n) {
  const LoopAnnotation& a = n.annot;
  return n.kind == LoopNode::Kind::For && a.parallel && a.vector_width == 0 && !a.reduction && !a.register_tile &&
         !a.accumulate_in_registers && a.partial_totals == 0;
}

class Joiner {
 public:
  Joiner(const SemaDef& def, const DefShapes& shapes, LoopNest& nest, std::vector<bool>& skipped)
      : nest_(nest), skipped_(skipped), reader_(def, shapes, nest) {}

  void run() {
    Ranges outer;
    join(nest_.root.children, outer, true);
  }

 private:
  // `top`: the root's nests, some of which may not run (skipped_).
  void join(std::vector<LoopNode>& list, Ranges& outer, bool top) {
    std::vector<bool> none(list.size(), false);
    std::vector<bool>& skipped = top ? skipped_ : none;
    for (size_t k = 0; k < list.size(); ++k) {
      // A copy in front of a parallel loop (a pack at depth 0) holds that loop: the loops
      // after it join into it there, the buffer living on until they end.
      const bool packed = list[k].kind == LoopNode::Kind::Pack && !nest_.packs[size_t(list[k].pack)].local;
      if (packed) join(list[k].children, outer, false);
      if (!skipped[k] && target(list[k])) {
        // Nests that do not run stand between nothing. Those joined across move in front of
        // the joined loop, so that the C text's note on each still comes before its sums.
        for (size_t next = k + 1;; next = k + 1) {
          while (next < list.size() && skipped[next]) ++next;
          if (next == list.size() || !joinable(*target(list[k]), list[next], outer)) break;
          // The loops below a copy read its buffer in place of the tensor: one that joins
          // the copy's loop must not touch that tensor.
          if (packed && reader_.touches(list[next], nest_.packs[size_t(list[k].pack)].tensor)) break;
          std::rotate(list.begin() + std::ptrdiff_t(k), list.begin() + std::ptrdiff_t(k) + 1, list.begin() + std::ptrdiff_t(next));
          std::rotate(skipped.begin() + std::ptrdiff_t(k), skipped.begin() + std::ptrdiff_t(k) + 1, skipped.begin() + std::ptrdiff_t(next));
          k = next - 1;
          // The joined loop's body as a block that keeps its loop id, for the C text.
          LoopNode body;
          body.kind = LoopNode::Kind::Block;
          body.loop_id = list[next].loop_id;
          body.children = std::move(list[next].children);
          target(list[k])->children.push_back(std::move(body));
          list.erase(list.begin() + std::ptrdiff_t(next));
          skipped.erase(skipped.begin() + std::ptrdiff_t(next));
        }
        continue;  // loops inside a parallel one run on its thread
      }
      if (packed) continue;
      LoopNode& n = list[k];
      if (n.kind == LoopNode::Kind::For) {
        std::optional<Interval> values = iterator_range(n, outer);
        if (!values) continue;
        outer[n.iter] = *values;
        join(n.children, outer, false);
        outer.erase(n.iter);
        continue;
      }
      join(n.children, outer, false);
      join(n.else_children, outer, false);
    }
  }

  // The parallel loop that loops after `n` may join: n itself, or the last loop inside a
  // copy; null where there is none.
  LoopNode* target(LoopNode& n) const {
    if (plain_parallel(n)) return &n;
    if (n.kind == LoopNode::Kind::Pack && !nest_.packs[size_t(n.pack)].local && !n.children.empty() &&
        plain_parallel(n.children.back()))
      return &n.children.back();
    return nullptr;
  }

  // Same bounds, as constants, and no iteration of one touching what another iteration
  // of the other writes.
  bool joinable(const LoopNode& a, const LoopNode& b, const Ranges& outer) {
    if (!plain_parallel(b) || a.iter != b.iter || a.stride != b.stride || a.stride <= 0 || a.annot.unroll != b.annot.unroll ||
        a.annot.fetch_ahead != b.annot.fetch_ahead)
      return false;
    std::optional<int64_t> first = constant_value(a.init, outer), last = constant_value(a.upper, outer);
    if (!first || !last || first != constant_value(b.init, outer) || last != constant_value(b.upper, outer)) return false;
    std::optional<std::vector<Footprint>> fa = reader_.iterations(a, outer, kMaxIterations);
    std::optional<std::vector<Footprint>> fb = fa ? reader_.iterations(b, outer, kMaxIterations) : std::nullopt;
    if (!fa || !fb) return false;
    for (size_t i = 0; i < fa->size(); ++i)
      for (size_t j = 0; j < fb->size(); ++j)
        if (i != j && !apart((*fa)[i], (*fb)[j])) return false;
    return true;
  }

  LoopNest& nest_;
  std::vector<bool>& skipped_;
  FootprintReader reader_;
};

}  // namespace

void join_parallel_loops(const SemaDef& def, const DefShapes& shapes, bool symbolic_sizes, LoopNest& nest,
                         std::vector<bool>& skipped) {
  skipped.resize(nest.root.children.size(), false);
  if (!symbolic_sizes) Joiner(def, shapes, nest, skipped).run();
}

}  // namespace tcs
