#pragma once
// Decides what the code fetches into the cache ahead of its use, as plain data: which
// packed copies fetch their next box while the current one is used (PackSite::ahead_iter,
// which both code writers follow), and which loops fetch their reads a few iterations on
// (LoopAnnotation::fetch_ahead: the LLVM code's prefetches, a tag in the C text).
//
// A layer of mlp3 copies 16 boxes of 256 x 256 weights, each from memory, then runs
// 80 µs of register tiles on it. On one core nothing overlaps the two: the copies were a
// sixth of the kernel. The register tiles leave the memory system idle, so the next box's
// lines can arrive meanwhile, a few per tile, and the copy then reads them from the cache.
#include "loopnest/LoopNest.h"

namespace tcs {

void plan_fetch_ahead(LoopNest& nest);

// Marks the loop around each innermost long loop to fetch its reads `iterations` ahead
// (LoopAnnotation::fetch_ahead; cpu.fetchAhead, 0: none). A loop of a few iterations,
// such as a pooling window, does not count as innermost.
//
// A 2x2 max pooling reads two rows of 448 bytes for each output row: short runs the
// hardware prefetcher does not follow. With the next rows fetched two output rows ahead,
// the same loop built by g++ read 40 GB/s on one core instead of 24 (the machine's triad:
// 36).
void plan_stream_ahead(LoopNest& nest, int iterations);

}  // namespace tcs
