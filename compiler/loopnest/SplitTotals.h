#pragma once
// A reduction into a single element (a total `S +=! X(i, j)`, a dot product, a loss, the
// largest value) or into a few (an image's channel means, `M(c) +=! I(h, w, c)`) has no
// loop the threads can share: every iteration combines into the same elements. Its
// outermost loop is split into parts, and a new loop over the parts runs on the threads
// (LoopAnnotation::partial_totals): each part combines its share of the iterations into
// accumulators of its own, a copy of the whole output starting at the reduction's
// identity, and after that loop the parts' copies are combined into the output in part
// order.
//
// The number of parts depends on the work, never on the thread count, so a kernel gives
// the same result on one thread as on many. That result differs from the one-part order
// by reassociation alone, which the vectorised reduction inside each part already does.
#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "loopnest/LoopNest.h"
#include "options/MappingOptions.h"

namespace tcs {

// `symbolic_sizes`: the nest reads its sizes when it runs (`shapes` only guided choices).
void split_totals(const SemaDef& def, const DefShapes& shapes, bool symbolic_sizes, LoopNest& nest,
                  const MappingOptions& options);

}  // namespace tcs
