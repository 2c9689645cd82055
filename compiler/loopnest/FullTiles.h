#pragma once
// Separates full register tiles from partial ones. A register loop from `i0` to
// min(i0 + K - 1, rest) runs K times whenever rest >= i0 + K - 1; the reduction loop
// around such loops is duplicated under that condition, so the copy that runs almost
// always has constant trip counts, which the backend unrolls into registers.
#include "loopnest/LoopNest.h"

namespace tcs {

void separate_full_register_tiles(LoopNest& nest);

}  // namespace tcs
