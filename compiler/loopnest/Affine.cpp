#include "loopnest/Affine.h"

#include <algorithm>
#include <map>

#include "support/IntDiv.h"

namespace tcs {
namespace {

// An affine form over iterators and parameters: constant + sum coef * variable.
using Linear = std::map<std::pair<int, int64_t>, int64_t>;  // (op, number) -> coef; (-1, 0): constant

std::optional<Linear> linear(const LExpr& e) {
  using Op = LExpr::Op;
  Linear r;
  switch (e.op) {
    case Op::Int: r[{-1, 0}] = e.value; return r;
    case Op::Iter: case Op::Param: r[{int(e.op), e.value}] = 1; return r;
    case Op::Add: case Op::Sub: {
      auto a = linear(e.args[0]), b = linear(e.args[1]);
      if (!a || !b) return std::nullopt;
      for (auto& [k, v] : *b) (*a)[k] += e.op == Op::Add ? v : -v;
      return a;
    }
    case Op::Neg: {
      auto a = linear(e.args[0]);
      if (!a) return std::nullopt;
      for (auto& [k, v] : *a) v = -v;
      return a;
    }
    case Op::Mul: {
      const LExpr* k = e.args[0].is_int() ? &e.args[0] : e.args[1].is_int() ? &e.args[1] : nullptr;
      if (!k) return std::nullopt;
      auto a = linear(k == &e.args[0] ? e.args[1] : e.args[0]);
      if (!a) return std::nullopt;
      for (auto& [key, v] : *a) v *= k->value;
      return a;
    }
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<int64_t> constant_span(const LExpr& init, const LExpr& upper) {
  auto a = linear(upper), b = linear(init);
  if (!a || !b) return std::nullopt;
  for (auto& [k, v] : *b) (*a)[k] -= v;
  int64_t c = 0;
  for (auto& [k, v] : *a) {
    if (k.first == -1) c = v;
    else if (v != 0) return std::nullopt;
  }
  return c;
}

std::optional<int64_t> iter_coefficient(const LExpr& e, int iter) {
  using Op = LExpr::Op;
  auto c = [&](size_t i) { return iter_coefficient(e.args[i], iter); };
  switch (e.op) {
    case Op::Int: case Op::Param: return 0;
    case Op::Iter: return e.value == iter ? 1 : 0;
    case Op::Add: case Op::Sub: {
      auto a = c(0), b = c(1);
      if (!a || !b) return std::nullopt;
      return e.op == Op::Add ? *a + *b : *a - *b;
    }
    case Op::Neg: {
      auto a = c(0);
      if (!a) return std::nullopt;
      return -*a;
    }
    case Op::Mul: {
      auto a = c(0), b = c(1);
      if (!a || !b) return std::nullopt;
      if (*a == 0 && *b == 0) return 0;
      if (e.args[0].is_int()) return e.args[0].value * *b;
      if (e.args[1].is_int()) return e.args[1].value * *a;
      return std::nullopt;
    }
    default:
      for (const LExpr& x : e.args) {
        auto a = iter_coefficient(x, iter);
        if (!a || *a != 0) return std::nullopt;
      }
      return 0;
  }
}

bool moves_with(const LExpr& e, const std::vector<const LoopNode*>& loops) {
  for (const LoopNode* l : loops)
    if (iter_coefficient(e, l->iter) != std::optional<int64_t>(0)) return true;
  return false;
}

std::optional<std::pair<int64_t, int64_t>> value_range(const LExpr& e,
                                                       const std::map<int, std::pair<int64_t, int64_t>>& ranges) {
  using Op = LExpr::Op;
  using Range = std::pair<int64_t, int64_t>;
  auto arg = [&](size_t i) { return value_range(e.args[i], ranges); };
  // Values within 2^40 times constants within 2^20 cannot overflow; a wider range is not
  // one this is asked about.
  constexpr int64_t kLimit = int64_t(1) << 40;
  auto bounded = [&](Range r) -> std::optional<Range> {
    if (r.first < -kLimit || r.second > kLimit) return std::nullopt;
    return r;
  };
  switch (e.op) {
    case Op::Int: return bounded({e.value, e.value});
    case Op::Iter: {
      auto it = ranges.find(int(e.value));
      if (it == ranges.end()) return std::nullopt;
      return bounded(it->second);
    }
    case Op::Add: case Op::Sub: {
      auto a = arg(0), b = arg(1);
      if (!a || !b) return std::nullopt;
      if (e.op == Op::Add) return bounded({a->first + b->first, a->second + b->second});
      return bounded({a->first - b->second, a->second - b->first});
    }
    case Op::Neg: {
      auto a = arg(0);
      if (!a) return std::nullopt;
      return Range{-a->second, -a->first};
    }
    case Op::Mul: {
      const LExpr* k = e.args[0].is_int() ? &e.args[0] : e.args[1].is_int() ? &e.args[1] : nullptr;
      if (!k) return std::nullopt;
      auto a = value_range(k == &e.args[0] ? e.args[1] : e.args[0], ranges);
      constexpr int64_t kFactor = int64_t(1) << 20;  // with kLimit, a product below 2^60
      if (!a || k->value < -kFactor || k->value > kFactor) return std::nullopt;
      int64_t x = a->first * k->value, y = a->second * k->value;
      return bounded({std::min(x, y), std::max(x, y)});
    }
    case Op::FloorDiv: case Op::ExactDiv: {
      auto a = arg(0);
      if (!a || !e.args[1].is_int() || e.args[1].value <= 0) return std::nullopt;
      int64_t d = e.args[1].value;
      return Range{floor_div(a->first, d), floor_div(a->second, d)};
    }
    case Op::Min: case Op::Max: {
      auto a = arg(0), b = arg(1);
      if (!a || !b) return std::nullopt;
      if (e.op == Op::Min) return Range{std::min(a->first, b->first), std::min(a->second, b->second)};
      return Range{std::max(a->first, b->first), std::max(a->second, b->second)};
    }
    default: return std::nullopt;
  }
}

std::optional<std::pair<int64_t, int64_t>> iterator_range(const LoopNode& n,
                                                          const std::map<int, std::pair<int64_t, int64_t>>& ranges) {
  auto lo = value_range(n.init, ranges), hi = value_range(n.upper, ranges);
  if (!lo || !hi) return std::nullopt;
  return std::pair{lo->first, hi->second};
}

std::optional<TileBound> split_tile_bound(const LExpr& init, const LExpr& upper) {
  if (upper.op != LExpr::Op::Min) return std::nullopt;
  for (int i = 0; i < 2; ++i)
    if (auto span = constant_span(init, upper.args[size_t(i)]))
      return TileBound{upper.args[size_t(i)], upper.args[size_t(1 - i)], *span};
  return std::nullopt;
}

std::optional<ClampedTile> clamped_tile(const LExpr& init, const LExpr& upper) {
  auto terms = [](const LExpr& e, LExpr::Op op) {  // in the order written
    std::vector<const LExpr*> out;
    auto add = [&](auto& self, const LExpr& x) -> void {
      if (x.op != op) return out.push_back(&x);
      for (const LExpr& a : x.args) self(self, a);
    };
    add(add, e);
    return out;
  };
  std::vector<const LExpr*> starts = terms(init, LExpr::Op::Max), ends = terms(upper, LExpr::Op::Min);
  if (starts.size() + ends.size() <= 2) return std::nullopt;  // not clamped
  // The register tile is the narrowest pair a constant span apart; the first of equals.
  const LExpr *a = nullptr, *b = nullptr;
  int64_t least = 0;
  for (const LExpr* x : starts)
    for (const LExpr* y : ends)
      if (std::optional<int64_t> span = constant_span(*x, *y); span && *span >= 0 && (!a || *span < least))
        a = x, b = y, least = *span;
  if (!a) return std::nullopt;
  ClampedTile t{*a, *b, {}};
  for (const LExpr* x : starts)
    if (x != a) t.conditions.emplace_back(*a, *x);
  for (const LExpr* y : ends)
    if (y != b) t.conditions.emplace_back(*y, *b);
  return t;
}

std::optional<int64_t> full_span(const LoopNode& n) {
  if (std::optional<int64_t> span = constant_span(n.init, n.upper)) return span;
  if (std::optional<TileBound> bound = split_tile_bound(n.init, n.upper)) return bound->span;
  return std::nullopt;
}

}  // namespace tcs
