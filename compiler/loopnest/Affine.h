#pragma once
// Affine questions about loop-nest expressions, asked by the LoopNest passes and the
// backends: is a loop's trip count constant, how does a value move with an iterator.
#include <cstdint>
#include <map>
#include <optional>

#include "loopnest/LoopNest.h"

namespace tcs {

// upper - init when it is the same constant for every iterator and size value.
std::optional<int64_t> constant_span(const LExpr& init, const LExpr& upper);

// The coefficient of iterator `iter` in e: e = coefficient * iter + (terms without iter).
// Non-affine parts are fine as long as they do not mention iter; nullopt otherwise.
std::optional<int64_t> iter_coefficient(const LExpr& e, int iter);

// The least and greatest value of `e` when each iterator in `ranges` takes the values of
// its interval; nullopt when e mentions another iterator or a size, or is not made of
// + - * by a constant, floor and exact division by a positive constant, min and max.
std::optional<std::pair<int64_t, int64_t>> value_range(const LExpr& e,
                                                       const std::map<int, std::pair<int64_t, int64_t>>& ranges);

// The values loop `n`'s iterator takes when the iterators in `ranges` take theirs (its
// least start to its greatest end; empty when the start can exceed the end throughout:
// first > second); nullopt when value_range cannot bound its init or upper.
std::optional<std::pair<int64_t, int64_t>> iterator_range(const LoopNode& n,
                                                          const std::map<int, std::pair<int64_t, int64_t>>& ranges);

// Whether `e` moves with one of `loops` (mentions its iterator other than times zero).
bool moves_with(const LExpr& e, const std::vector<const LoopNode*>& loops);

// A partial tile's loop runs from init to min(a, b), one side a constant distance from
// init (the full tile's bound) and the other the domain's edge: those two, when so.
struct TileBound {
  LExpr full, edge;
  int64_t span = 0;  // full - init
};
std::optional<TileBound> split_tile_bound(const LExpr& init, const LExpr& upper);

// A register loop clamped at either end or both: from max(a, ...) to min(b, ...), where a
// and b are a constant span apart (the register tile's own bounds) and the other terms
// are a cache tile's or the domain's edges, as when a register tile straddles two cache
// tiles. The full tile's bounds, and what makes the loop run them: each pair's first
// value at least its second.
struct ClampedTile {
  LExpr init, upper;
  std::vector<std::pair<LExpr, LExpr>> conditions;
};
std::optional<ClampedTile> clamped_tile(const LExpr& init, const LExpr& upper);

// The loop's span at its longest: constant_span, or a partial tile's full tile span.
std::optional<int64_t> full_span(const LoopNode& n);

}  // namespace tcs
