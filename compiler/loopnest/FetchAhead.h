#pragma once
// Decides which packed copies fetch their next box while the current one is used
// (PackSite::ahead_iter): plain data both code writers follow.
//
// A layer of mlp3 copies 16 boxes of 256 x 256 weights, each from memory, then runs
// 80 µs of register tiles on it. On one core nothing overlaps the two: the copies were a
// sixth of the kernel. The register tiles leave the memory system idle, so the next box's
// lines can arrive meanwhile, a few per tile, and the copy then reads them from the cache.
#include "loopnest/LoopNest.h"

namespace tcs {

void plan_fetch_ahead(LoopNest& nest);

}  // namespace tcs
