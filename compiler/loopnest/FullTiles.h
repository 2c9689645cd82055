#pragma once
// Separates full register tiles from partial ones. A register loop from `i0` to
// min(i0 + K - 1, rest) runs K times whenever rest >= i0 + K - 1; the reduction loop
// around such loops is duplicated under that condition, so the copy that runs almost
// always has constant trip counts, which the backend unrolls into registers.
#include "loopnest/LoopNest.h"

namespace tcs {

void separate_full_register_tiles(LoopNest& nest);

// The reduction loops that carry a register tile's accumulators: `n` and the loops
// nested in it that also keep them in registers (each the only child of the one
// before), outermost first. The register loops come below the last one.
std::vector<const LoopNode*> accumulating_loops(const LoopNode& n);

}  // namespace tcs
