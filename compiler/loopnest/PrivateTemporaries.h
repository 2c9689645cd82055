#pragma once
// Keeps a temporary in a buffer of each iteration of an outermost loop, where every
// access to it runs in that loop and each iteration touches a part of its own: the
// buffer then lives on the stack of the thread running the iteration (a local pack,
// PackSite::local) and the full-size tensor is never touched.
//
// Contractions in a chain (kru3, and any kernel written as products one after another)
// take a top-level nest each, tiled for its own shape, so the scheduler's local pass,
// which looks inside one band, finds no temporary to keep. Once their parallel loops over
// the same rows are joined (JoinParallelLoops.h), each row's part of a temporary is
// written and read within one iteration. kru3 at 256 x 32^3 wrote 16 MiB of XW2 and 8 MiB
// of XW1 through the caches to memory and read them back; kept per row, 64 and 32 KiB
// stay in L2.
//
// Each iteration's part is a box (loopnest/Footprints.h) that moves by the same step
// every iteration, keeps its size, and meets no other iteration's; every read of the
// temporary finds an element written before it (LoopNest::fed_temporaries), so the buffer
// need not start as the tensor does. Not done where sizes are read when the kernel runs,
// for loops of more than kMaxIterations iterations, or where a loop's buffers together
// would pass kMaxLocalBufferBytes (each thread holds one of each on its stack).
#include <vector>

#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "loopnest/LoopNest.h"

namespace tcs {

// `skipped`: per top-level nest, one the backend does not run (JoinParallelLoops.h);
// its accesses do not count.
void keep_private_temporaries(const SemaDef& def, const DefShapes& shapes, bool symbolic_sizes, LoopNest& nest,
                              const std::vector<bool>& skipped);

}  // namespace tcs
