#pragma once
// A reduction into a single element (a total `S +=! X(i, j)`, a dot product, a loss, the
// largest value) has no loop the threads can share: every iteration combines into the
// same element. Its outermost loop is split into parts, and a new loop over the parts
// runs on the threads (LoopAnnotation::partial_totals): each part combines its share of
// the iterations into an accumulator of its own, starting at the reduction's identity, and
// after that loop the parts' results are combined into the element in part order.
//
// The number of parts depends on the work, never on the thread count, so a kernel gives
// the same result on one thread as on many. That result differs from the one-part order
// by reassociation alone, which the vectorised reduction inside each part already does.
#include "lang/Sema.h"
#include "loopnest/LoopNest.h"
#include "options/MappingOptions.h"

namespace tcs {

void split_totals(const SemaDef& def, LoopNest& nest, const MappingOptions& options);

}  // namespace tcs
