#pragma once
// Affine questions about loop-nest expressions, asked by the LoopNest passes and the
// backends: is a loop's trip count constant, how does a value move with an iterator.
#include <cstdint>
#include <optional>

#include "loopnest/LoopNest.h"

namespace tcs {

// upper - init when it is the same constant for every iterator and size value.
std::optional<int64_t> constant_span(const LExpr& init, const LExpr& upper);

// The coefficient of iterator `iter` in e: e = coefficient * iter + (terms without iter).
// Non-affine parts are fine as long as they do not mention iter; nullopt otherwise.
std::optional<int64_t> iter_coefficient(const LExpr& e, int iter);

// A partial tile's loop runs from init to min(a, b), one side a constant distance from
// init (the full tile's bound) and the other the domain's edge: those two, when so.
struct TileBound {
  LExpr full, edge;
  int64_t span = 0;  // full - init
};
std::optional<TileBound> split_tile_bound(const LExpr& init, const LExpr& upper);

// The loop's span at its longest: constant_span, or a partial tile's full tile span.
std::optional<int64_t> full_span(const LoopNode& n);

}  // namespace tcs
