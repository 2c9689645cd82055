#include "loopnest/Footprints.h"

#include <algorithm>
#include <limits>

#include "loopnest/Affine.h"
#include "support/IntDiv.h"

namespace tcs {
namespace {

void cover(std::map<int, Box>& boxes, int tensor, const Box& box) {
  auto [it, fresh] = boxes.emplace(tensor, box);
  if (!fresh) hull(it->second, box);
}

// Narrows the iterators' ranges in `ranges` to where guard `cond` may hold, for each of
// its comparisons that bounds one iterator by a constant (a full tile's test: 120 >=
// 64 c3 + 63); false where it holds nowhere. Other comparisons narrow nothing.
bool narrow(const LExpr& cond, Ranges& ranges) {
  using Op = LExpr::Op;
  if (cond.op == Op::And) return std::all_of(cond.args.begin(), cond.args.end(), [&](const LExpr& c) { return narrow(c, ranges); });
  if (cond.op != Op::Ge && cond.op != Op::Gt && cond.op != Op::Le && cond.op != Op::Lt && cond.op != Op::Eq) return true;
  LExpr d = LExpr::make(Op::Sub, {cond.args[0], cond.args[1]});  // the guard: d compared with 0
  int iter = -1;
  int64_t k = 0;
  for (const auto& [i, range] : ranges) {
    std::optional<int64_t> c = iter_coefficient(d, i);
    if (!c) return true;
    if (*c == 0) continue;
    if (iter >= 0) return true;  // two iterators
    iter = i;
    k = *c;
  }
  if (iter < 0) return true;
  Ranges at_zero = ranges;
  at_zero[iter] = {0, 0};
  std::optional<Interval> rest = value_range(d, at_zero);
  if (!rest || rest->first != rest->second) return true;
  // lo <= k * i + rest <= hi
  const int64_t none = std::numeric_limits<int64_t>::max() / 4;
  int64_t lo = cond.op == Op::Ge ? 0 : cond.op == Op::Gt ? 1 : cond.op == Op::Eq ? 0 : -none;
  int64_t hi = cond.op == Op::Le ? 0 : cond.op == Op::Lt ? -1 : cond.op == Op::Eq ? 0 : none;
  Interval& r = ranges[iter];
  if (k > 0) {
    if (lo != -none) r.first = std::max(r.first, ceil_div(lo - rest->first, k));
    if (hi != none) r.second = std::min(r.second, floor_div(hi - rest->first, k));
  } else {
    if (hi != none) r.first = std::max(r.first, ceil_div(hi - rest->first, k));
    if (lo != -none) r.second = std::min(r.second, floor_div(lo - rest->first, k));
  }
  return r.first <= r.second;
}

}  // namespace

void hull(Box& into, const Box& box) {
  for (size_t d = 0; d < box.size(); ++d)
    into[d] = {std::min(into[d].first, box[d].first), std::max(into[d].second, box[d].second)};
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

std::optional<int64_t> constant_value(const LExpr& e, const Ranges& outer) {
  std::optional<Interval> r = value_range(e, outer);
  if (!r || r->first != r->second) return std::nullopt;
  return r->first;
}

FootprintReader::FootprintReader(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest)
    : shapes_(shapes), nest_(nest) {
  for (const PolyStmt& ps : nest.stmts) accesses_.push_back(statement_accesses(def, ps));
}

bool FootprintReader::touches(const LoopNode& n, int t) const {
  for (int s : calls_below(n))
    for (const TensorAccess& a : accesses_[size_t(s)])
      if (a.tensor == t) return true;
  return false;
}

std::optional<Footprint> FootprintReader::iteration(const LoopNode& loop, int64_t value, Ranges outer) const {
  outer[loop.iter] = {value, value};
  Footprint f;
  for (const LoopNode& c : loop.children)
    if (!walk(c, outer, f)) return std::nullopt;
  return f;
}

std::optional<std::vector<Footprint>> FootprintReader::iterations(const LoopNode& loop, const Ranges& outer,
                                                                  int64_t most) const {
  std::optional<int64_t> first = constant_value(loop.init, outer), last = constant_value(loop.upper, outer);
  if (!first || !last || loop.stride <= 0 || *last < *first || (*last - *first) / loop.stride + 1 > most) return std::nullopt;
  std::vector<Footprint> each;
  for (int64_t v = *first; v <= *last; v += loop.stride) {
    std::optional<Footprint> f = iteration(loop, v, outer);
    if (!f) return std::nullopt;
    each.push_back(std::move(*f));
  }
  return each;
}

bool FootprintReader::walk(const LoopNode& n, Ranges& ranges, Footprint& f) const {
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
    case LoopNode::Kind::If: {
      Ranges kept = ranges;
      bool taken = narrow(n.cond, ranges), known = !taken || all(n.children);
      ranges = std::move(kept);
      return known && all(n.else_children);
    }
    case LoopNode::Kind::Block: return all(n.children) && all(n.else_children);
  }
  return false;
}

bool FootprintReader::call(const LoopNode& n, const Ranges& ranges, Footprint& f) const {
  std::vector<Interval> index;
  for (const LExpr& a : n.args) {
    std::optional<Interval> r = value_range(a, ranges);
    if (!r) return false;
    index.push_back(*r);
  }
  for (const TensorAccess& a : accesses_[size_t(n.stmt)]) {
    const TensorShape& shape = shapes_.tensors[size_t(a.tensor)];
    Box box, whole;
    bool spills = false;
    for (size_t d = 0; d < shape.extent.size(); ++d) {
      int64_t min = d < shape.min.size() ? shape.min[d] : 0;
      whole.push_back({min, min + shape.extent[d] - 1});
      Interval at = whole.back();  // the whole dimension unless known
      if (d < a.subscripts.size() && a.subscripts[d].affine)
        if (std::optional<Interval> s = subscript(a.subscripts[d], index)) at = *s;
      spills = spills || at.first < whole.back().first || at.second > whole.back().second;
      box.push_back(at);
    }
    cover(a.write ? f.writes : f.reads, a.tensor, spills ? row_major_cover(box, whole) : box);
  }
  return true;
}

// An index past its dimension's end: rows laid end to end run as one loop
// (loopnest/CollapseRows.h), and a call's last index runs through the rows after the one
// its other indices name; or a guard keeps the index in range, which the intervals do not
// see. The elements lie between the first and last the box names in memory order: every
// dimension inside the first where those two differ is whole.
Box FootprintReader::row_major_cover(const Box& box, const Box& whole) {
  int64_t first = 0, last = 0, total = 1;
  for (size_t d = box.size(); d-- > 0;) {
    int64_t extent = whole[d].second - whole[d].first + 1;
    first += (box[d].first - whole[d].first) * total;
    last += (box[d].second - whole[d].first) * total;
    total *= extent;
  }
  if (first < 0 || last >= total || first > last) return whole;
  Box cover = whole;
  std::vector<int64_t> a(box.size()), b(box.size());
  for (size_t d = box.size(); d-- > 0;) {
    int64_t extent = whole[d].second - whole[d].first + 1;
    a[d] = first % extent;
    b[d] = last % extent;
    first /= extent;
    last /= extent;
  }
  for (size_t d = 0; d < box.size(); ++d) {
    cover[d] = {whole[d].first + a[d], whole[d].first + b[d]};
    if (a[d] != b[d]) break;
  }
  return cover;
}

// sum coef * index + rest over the indices' intervals.
std::optional<Interval> FootprintReader::subscript(const SubscriptForm& form, const std::vector<Interval>& index) const {
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

}  // namespace tcs
