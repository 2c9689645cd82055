#pragma once
// Joins parallel loops that run one after the other over the same iterations into one
// loop, where each iteration of either touches nothing that another iteration of the
// other writes, or writes nothing another reads: the threads then take their share of
// both in one hand-off instead of two.
//
// Each parallel loop is one hand-off to the thread pool and one wait for it: about a
// quarter of a microsecond on two Zen 4 cores. A linear layer is two such loops (the
// product, then its bias and ReLU over the same columns), an MLP of three layers six,
// attention eight, and at their examples' sizes (7-15 us) the waits were a tenth of the
// time on two threads. Each thread still runs the iterations it ran before, in the same
// order for each statement, so results are the same bit for bit.
//
// The check is made per iteration, on boxes (loopnest/Footprints.h): for each value of
// the loop's iterator, the box of elements of each tensor that each loop's statements and
// copies read and write. A box larger than the truth can only keep two loops apart. Loops
// whose bounds are not constants stay as they are, as do loops of more than kMaxIterations
// iterations, whose work a hand-off no longer weighs on, and every loop of a nest whose
// sizes are read when it runs: `shapes` are then only an example, and a subscript's
// offset (`T(i + N - 4)`) or a dimension's extent at other sizes is not known.
//
// A copy made in front of a parallel loop (kru3's W2, copied once at depth 0) holds the
// loops that join that loop, its buffer living on until they end, unless one of them
// touches the copied tensor, which the buffer would then stand in for.
#include <vector>

#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "loopnest/LoopNest.h"

namespace tcs {

// `skipped`: per nest of the root, one the backend does not run (an initialisation it
// folds into the register tiles: codegen/FoldedInitialisations.h). Such a nest joins
// nothing, and loops on either side of it may join, the nests between moving in front of
// the joined loop; `skipped` follows the root's nests as they move and join.
void join_parallel_loops(const SemaDef& def, const DefShapes& shapes, bool symbolic_sizes, LoopNest& nest,
                         std::vector<bool>& skipped);

}  // namespace tcs
