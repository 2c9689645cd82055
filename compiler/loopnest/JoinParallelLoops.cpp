#include "loopnest/JoinParallelLoops.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "loopnest/Accesses.h"
#include "loopnest/Affine.h"

namespace tcs {
namespace {

// Past this many iterations a hand-off weighs little against a loop's work, and the
// check, which compares every pair of iterations, would grow with their square.
constexpr int64_t kMaxIterations = 256;

using Interval = std::pair<int64_t, int64_t>;
using Ranges = std::map<int, Interval>;  // iterator -> its values
using Box = std::vector<Interval>;       // one interval per tensor dimension

// What one iteration of a loop touches: per tensor, a box around the elements.
struct Footprint {
  std::map<int, Box> reads, writes;
};

void cover(std::map<int, Box>& boxes, int tensor, const Box& box) {
  auto [it, fresh] = boxes.emplace(tensor, box);
  if (fresh) return;
  for (size_t d = 0; d < box.size(); ++d)
    it->second[d] = {std::min(it->second[d].first, box[d].first), std::max(it->second[d].second, box[d].second)};
}

bool meet(const Box& a, const Box& b) {
  for (size_t d = 0; d < a.size() && d < b.size(); ++d)
    if (a[d].second < b[d].first || b[d].second < a[d].first) return false;
  return true;
}

bool meet(const std::map<int, Box>& a, const std::map<int, Box>& b) {
  for (const auto& [tensor, box] : a)
    if (auto it = b.find(tensor); it != b.end() && meet(box, it->second)) return true;
  return false;
}

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
      : shapes_(shapes), nest_(nest), skipped_(skipped) {
    for (const PolyStmt& ps : nest.stmts) accesses_.push_back(statement_accesses(def, ps));
  }

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
      if (plain_parallel(list[k]) && !skipped[k]) {
        // Nests that do not run stand between nothing. Those joined across move in front of
        // the joined loop, so that the C text's note on each still comes before its sums.
        for (size_t next = k + 1;; next = k + 1) {
          while (next < list.size() && skipped[next]) ++next;
          if (next == list.size() || !joinable(list[k], list[next], outer)) break;
          std::rotate(list.begin() + std::ptrdiff_t(k), list.begin() + std::ptrdiff_t(k) + 1, list.begin() + std::ptrdiff_t(next));
          std::rotate(skipped.begin() + std::ptrdiff_t(k), skipped.begin() + std::ptrdiff_t(k) + 1, skipped.begin() + std::ptrdiff_t(next));
          k = next - 1;
          // The joined loop's body as a block that keeps its loop id, for the C text.
          LoopNode body;
          body.kind = LoopNode::Kind::Block;
          body.loop_id = list[next].loop_id;
          body.children = std::move(list[next].children);
          list[k].children.push_back(std::move(body));
          list.erase(list.begin() + std::ptrdiff_t(next));
          skipped.erase(skipped.begin() + std::ptrdiff_t(next));
        }
        continue;  // loops inside a parallel one run on its thread
      }
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

  // Same bounds, as constants, and no iteration of one touching what another iteration
  // of the other writes.
  bool joinable(const LoopNode& a, const LoopNode& b, const Ranges& outer) {
    if (!plain_parallel(b) || a.iter != b.iter || a.stride != b.stride || a.stride <= 0 || a.annot.unroll != b.annot.unroll ||
        a.annot.fetch_ahead != b.annot.fetch_ahead)
      return false;
    std::optional<int64_t> first = constant(a.init, outer), last = constant(a.upper, outer);
    if (!first || !last || first != constant(b.init, outer) || last != constant(b.upper, outer)) return false;
    if (*last < *first || (*last - *first) / a.stride + 1 > kMaxIterations) return false;
    std::vector<Footprint> fa, fb;
    for (int64_t v = *first; v <= *last; v += a.stride) {
      std::optional<Footprint> x = footprint(a, v, outer), y = footprint(b, v, outer);
      if (!x || !y) return false;
      fa.push_back(std::move(*x));
      fb.push_back(std::move(*y));
    }
    for (size_t i = 0; i < fa.size(); ++i)
      for (size_t j = 0; j < fb.size(); ++j)
        if (i != j && !apart(fa[i], fb[j])) return false;
    return true;
  }

  static std::optional<int64_t> constant(const LExpr& e, const Ranges& outer) {
    std::optional<Interval> r = value_range(e, outer);
    if (!r || r->first != r->second) return std::nullopt;
    return r->first;
  }

  // What the body of `loop` touches when its iterator is `value`; nullopt where a bound or
  // an index is not a known range.
  std::optional<Footprint> footprint(const LoopNode& loop, int64_t value, Ranges ranges) {
    ranges[loop.iter] = {value, value};
    Footprint f;
    for (const LoopNode& c : loop.children)
      if (!walk(c, ranges, f)) return std::nullopt;
    return f;
  }

  bool walk(const LoopNode& n, Ranges& ranges, Footprint& f) {
    auto all = [&](const std::vector<LoopNode>& list) {
      return std::all_of(list.begin(), list.end(), [&](const LoopNode& c) { return walk(c, ranges, f); });
    };
    switch (n.kind) {
      case LoopNode::Kind::For: {
        std::optional<Interval> values = iterator_range(n, ranges);
        if (!values) return false;
        if (values->first > values->second) return true;  // never runs
        ranges[n.iter] = *values;
        bool known = all(n.children);
        ranges.erase(n.iter);
        return known;
      }
      case LoopNode::Kind::Pack: {
        // A copy reads its box of the tensor; a local part is written and read in place of it.
        const PackSite& p = nest_.packs[size_t(n.pack)];
        Box box;
        for (size_t d = 0; d < p.offset.size(); ++d) {
          std::optional<Interval> o = value_range(p.offset[d], ranges);
          if (!o) return false;
          box.push_back({o->first, o->second + p.size[d] - 1});
        }
        cover(f.reads, p.tensor, box);
        if (p.local) cover(f.writes, p.tensor, box);
        return all(n.children);
      }
      case LoopNode::Kind::Call: return call(n, ranges, f);
      case LoopNode::Kind::If:
      case LoopNode::Kind::Block: return all(n.children) && all(n.else_children);
    }
    return false;
  }

  bool call(const LoopNode& n, const Ranges& ranges, Footprint& f) {
    std::vector<Interval> index;
    for (const LExpr& a : n.args) {
      std::optional<Interval> r = value_range(a, ranges);
      if (!r) return false;
      index.push_back(*r);
    }
    for (const TensorAccess& a : accesses_[size_t(n.stmt)]) {
      const TensorShape& shape = shapes_.tensors[size_t(a.tensor)];
      Box box;
      for (size_t d = 0; d < shape.extent.size(); ++d) {
        int64_t min = d < shape.min.size() ? shape.min[d] : 0;
        Interval at{min, min + shape.extent[d] - 1};  // the whole dimension unless known
        if (d < a.subscripts.size() && a.subscripts[d].affine)
          if (std::optional<Interval> s = subscript(a.subscripts[d], index)) at = *s;
        box.push_back(at);
      }
      cover(a.write ? f.writes : f.reads, a.tensor, box);
    }
    return true;
  }

  // sum coef * index + rest over the indices' intervals.
  std::optional<Interval> subscript(const SubscriptForm& form, const std::vector<Interval>& index) const {
    std::optional<int64_t> rest = form.rest.eval(shapes_.sizes);
    if (!rest) return std::nullopt;
    Interval r{*rest, *rest};
    for (const auto& [i, coef] : form.coefs) {
      if (i < 0 || size_t(i) >= index.size()) return std::nullopt;
      int64_t x = coef * index[size_t(i)].first, y = coef * index[size_t(i)].second;
      r.first += std::min(x, y);
      r.second += std::max(x, y);
    }
    return r;
  }

  const DefShapes& shapes_;
  LoopNest& nest_;
  std::vector<bool>& skipped_;
  std::vector<std::vector<TensorAccess>> accesses_;  // by LoopNest::stmts index
};

}  // namespace

void join_parallel_loops(const SemaDef& def, const DefShapes& shapes, bool symbolic_sizes, LoopNest& nest,
                         std::vector<bool>& skipped) {
  skipped.resize(nest.root.children.size(), false);
  if (!symbolic_sizes) Joiner(def, shapes, nest, skipped).run();
}

}  // namespace tcs
