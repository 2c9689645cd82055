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

}  // namespace tcs
