#pragma once
// Runs two nested loops as one where every address their statements touch moves with the
// outer loop exactly as far as the inner loop's whole run (a row of 28 pixels and the rows
// of an image, laid end to end in memory): the inner loop then scans both, and a vector
// loop over rows shorter than a few vectors becomes one long vector loop.
//
// An elementwise kernel over 28-pixel rows ran each row as a full and a masked vector (and
// a global pooling over 7 x 7 pixels seven masked vectors and seven horizontal sums); as
// one loop over an image's 784 pixels, or a channel's 49, the vectors are all full but
// the last.
#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "loopnest/LoopNest.h"

namespace tcs {

// `lanes`: the vector width a collapsed vector loop takes (cpu.vectorWidth).
void collapse_rows(const SemaDef& def, const DefShapes& shapes, LoopNest& nest, int lanes);

}  // namespace tcs
