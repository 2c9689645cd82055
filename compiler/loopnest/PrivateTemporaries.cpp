#include "loopnest/PrivateTemporaries.h"

#include <algorithm>
#include <map>
#include <optional>

#include "loopnest/Affine.h"
#include "loopnest/Footprints.h"

namespace tcs {
namespace {

// The check reads every iteration's footprint: past this many, the loop stays as it is.
constexpr int64_t kMaxIterations = 4096;

// A temporary's part in each iteration of a loop: the box at the loop's first value,
// and how far it moves per iteration, along each dimension.
struct MovingBox {
  Box first;
  std::vector<int64_t> step;
};

class Keeper {
 public:
  Keeper(const SemaDef& def, const DefShapes& shapes, LoopNest& nest, const std::vector<bool>& skipped)
      : def_(def), nest_(nest), skipped_(skipped), reader_(def, shapes, nest) {}

  void run() {
    for (int t : nest_.fed_temporaries) {
      if (has_site(t)) continue;  // already copied or kept local by the scheduler's passes
      std::vector<LoopNode*> holders;
      for (size_t k = 0; k < nest_.root.children.size(); ++k)
        if (!(k < skipped_.size() && skipped_[k]) && reader_.touches(nest_.root.children[k], t))
          outermost_loops(nest_.root.children[k], holders);
      // Every access in one loop: the only top-level nest that touches t is one loop.
      if (holders.size() != 1 || !holders[0]) continue;
      keep(*holders[0], t);
    }
  }

 private:
  bool has_site(int t) const {
    return std::any_of(nest_.packs.begin(), nest_.packs.end(), [&](const PackSite& p) { return p.tensor == t; });
  }

  // The outermost loops of `n` (through blocks, guards and copies); a call outside any
  // loop counts as null.
  static void outermost_loops(LoopNode& n, std::vector<LoopNode*>& out) {
    switch (n.kind) {
      case LoopNode::Kind::For: out.push_back(&n); return;
      case LoopNode::Kind::Call: out.push_back(nullptr); return;
      default:
        for (LoopNode& c : n.children) outermost_loops(c, out);
        for (LoopNode& c : n.else_children) outermost_loops(c, out);
    }
  }

  // The box of t each iteration of `l` touches, when it moves by one step each time and
  // keeps its size.
  std::optional<MovingBox> moving_box(const LoopNode& l, int t) {
    const std::vector<Footprint>* each = iterations(l);
    if (!each) return std::nullopt;
    std::optional<MovingBox> m;
    Box previous;
    for (size_t i = 0; i < each->size(); ++i) {
      Box box = union_of((*each)[i], t);
      if (box.empty()) return std::nullopt;  // some iteration leaves it alone: not a part each
      if (!m) {
        m = MovingBox{box, std::vector<int64_t>(box.size(), 0)};
      } else {
        for (size_t d = 0; d < box.size(); ++d) {
          int64_t step = box[d].first - previous[d].first;
          if (box[d].second - box[d].first != m->first[d].second - m->first[d].first) return std::nullopt;
          if (i == 1) m->step[d] = step;
          else if (step != m->step[d]) return std::nullopt;
        }
      }
      previous = std::move(box);
    }
    return m;
  }

  // What each iteration of `l` touches, read once per loop (the loop's boxes of other
  // tensors do not change as temporaries are kept); null where a bound or an index is not
  // a known range, or the loop is too long to check.
  const std::vector<Footprint>* iterations(const LoopNode& l) {
    auto [it, fresh] = footprints_.try_emplace(&l);
    if (fresh) it->second = reader_.iterations(l, {}, kMaxIterations);
    return it->second ? &*it->second : nullptr;
  }

  static Box union_of(const Footprint& f, int t) {
    Box box;
    for (const auto* side : {&f.reads, &f.writes})
      if (auto it = side->find(t); it != side->end()) {
        if (box.empty()) box = it->second;
        else hull(box, it->second);
      }
    return box;
  }

  void keep(LoopNode& l, int t) {
    std::optional<MovingBox> m = moving_box(l, t);
    if (!m) return;
    // Consecutive parts apart along some dimension keep every two apart: the boxes move
    // in a straight line.
    bool apart = false;
    int64_t bytes = scalar_type_bytes(def_.tensors[size_t(t)].type);
    for (size_t d = 0; d < m->first.size(); ++d) {
      int64_t size = m->first[d].second - m->first[d].first + 1;
      apart = apart || std::llabs(m->step[d]) >= size;
      bytes *= size;
      if (bytes > kMaxLocalBufferBytes) return;
    }
    // The loop's buffers together, each thread holding one of each on its stack.
    if (kept_bytes_[&l] + bytes > kMaxLocalBufferBytes) return;
    if (!apart) return;
    int64_t first = *constant_value(l.init, {});
    PackSite p;
    p.tensor = t;
    p.name = def_.tensors[size_t(t)].name;
    p.local = true;
    for (size_t d = 0; d < m->first.size(); ++d) {
      // offset = first box's start + step * (iter - first) / stride, an exact division.
      if (m->step[d] % l.stride != 0) return;
      int64_t per_unit = m->step[d] / l.stride;
      int64_t start = m->first[d].first - per_unit * first;
      LExpr moving = per_unit == 1 ? LExpr::iter(l.iter) : LExpr::make(LExpr::Op::Mul, {LExpr::integer(per_unit), LExpr::iter(l.iter)});
      p.offset.push_back(per_unit == 0 ? LExpr::integer(start)
                         : start == 0  ? moving
                                       : LExpr::make(LExpr::Op::Add, {moving, LExpr::integer(start)}));
      p.size.push_back(m->first[d].second - m->first[d].first + 1);
    }
    kept_bytes_[&l] += bytes;
    nest_.packs.push_back(std::move(p));
    LoopNode site;
    site.kind = LoopNode::Kind::Pack;
    site.pack = int(nest_.packs.size()) - 1;
    site.children = std::move(l.children);
    l.children.clear();
    l.children.push_back(std::move(site));
  }

  const SemaDef& def_;
  LoopNest& nest_;
  const std::vector<bool>& skipped_;
  FootprintReader reader_;
  std::map<const LoopNode*, int64_t> kept_bytes_;  // per loop, its buffers so far
  std::map<const LoopNode*, std::optional<std::vector<Footprint>>> footprints_;
};

}  // namespace

void keep_private_temporaries(const SemaDef& def, const DefShapes& shapes, bool symbolic_sizes, LoopNest& nest,
                              const std::vector<bool>& skipped) {
  if (symbolic_sizes || nest.fed_temporaries.empty()) return;
  Keeper(def, shapes, nest, skipped).run();
}

}  // namespace tcs
