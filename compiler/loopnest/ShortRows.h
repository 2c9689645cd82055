#pragma once
// A short row summed down a long loop (`S(c) +=! X(n, c)` over 3 colour channels or a few
// columns): cpu-marks gives the row, the innermost coincident loop, the vector, a masked
// vector of 3 of 16 lanes. Each step then loads, adds to and stores the same few elements
// of S, and a masked store does not forward to the next load: every row waits on the one
// before (1M floats in rows of 3: 2.6 ms on one core). The row is unrolled into the loop
// around it instead, one accumulator per element, and that loop is vectorised, its reads a
// row apart loaded whole and shuffled into lanes (LLVM's interleaved accesses): 0.045 ms.
#include "lang/Sema.h"
#include "loopnest/LoopNest.h"

namespace tcs {

void unroll_short_rows(const SemaDef& def, LoopNest& nest);

}  // namespace tcs
