#pragma once
// Moves work that a loop runs only on its first iteration out in front of the loop, and
// work it runs only on its last iteration out behind it, where nothing else the loop body
// does on that iteration touches the same tensors.
//
// Fusing a reduction with the loops around it (outer fusion Max) leaves its
// initialisation inside a row loop as `if (c1 == 0) var = 0`. LLVM then peels that first
// iteration off, and the vector loop that remains starts one element in, misaligned and
// with a long scalar tail: a fifth of a layernorm's time. Out in front, the statement runs
// once and the loop keeps its full, guard-free range.
#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "loopnest/LoopNest.h"

namespace tcs {

void hoist_edge_guards(const SemaDef& def, const DefShapes& shapes, LoopNest& nest);

}  // namespace tcs
