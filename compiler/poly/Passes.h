#pragma once
// The polyhedral passes by name, without isl: what a target picks from (the pipeline's
// common passes are called by Lowering.cpp itself; a target adds its mapping passes, run
// between tiling and AST generation). Each pass is defined in its own poly/*.cpp file;
// its header comment there says what it reads and what it changes.
namespace tcs::poly {

struct PolyJob;

// Each pass reads and changes only the PolyJob fields named here (poly/PolyJob.h).

// model. Reads: def, shapes, options.fix_parameters_before_scheduling. Sets: params and
// context (size parameters only when they stay symbolic; fixed sizes are numbers), statements
// (S<k>, S<k>_init) with their domains, reads and writes, the initial schedule (textual
// order), info (the model as text, notes for over-approximated accesses).
void build_model(PolyJob& job);
// dependences. Reads: the statements' accesses and the initial schedule. Sets: flow, anti,
// output (memory-based) and reduction (a reduction's self-dependences), and their text in
// info.
void compute_dependences(PolyJob& job);
// schedule. Reads: the dependences, options.outer_fusion. Sets: schedule (isl's, with a
// mark above every band naming a loop id per member), loops (role Scheduled) and each
// reduction's first summed-index values (stmts' reduction_first); notes a fallback when
// isl's work bound is hit.
void compute_schedule(PolyJob& job);
// tile. Reads: schedule, options.tile, register_tile, tile_imperfectly_nested,
// intra_tile_fusion, cpu.point_loop_order. Changes: schedule (outermost permutable bands
// split into tile and point bands, point bands reordered) and loops (roles Tile, Point,
// RegisterPoint, tile sizes, fixed for point loops whose tile has size 1).
void tile_bands(PolyJob& job);
// cpu-marks (CPU target). Reads: schedule, loops, options.cpu.parallel, vectorize,
// vector_width, register_accumulate, unroll. Changes: loops (parallel, vector width,
// unroll, accumulate in registers); the schedule is unchanged.
void mark_cpu_loops(PolyJob& job);
// pack (CPU target). Reads: schedule, loops, options.cpu.pack. Changes: schedule (a
// pack<k> mark `depth` loops into each tiled band that reads the tensor, splitting the
// band there).
void pack_tensors(PolyJob& job);
// local (CPU target). Reads: schedule, reads, writes, the initial schedule, loops,
// context. Changes: schedule (a local pack<k> mark inside the outermost band that loops,
// whose iterations each touch their own part of a temporary, written before it is read),
// packs (the local requests), fed_temporaries (those written before they are read, which
// the CPU target may still keep local once it joins their loops: loopnest/PrivateTemporaries.h).
void localize_temporaries(PolyJob& job);
// ast (poly/PolyJob.h build_loop_nest). Reads: schedule, loops, context. Builds the
// LoopNest from isl's AST of a copy of the schedule without the band members that scan one
// value (fixed, or a span of 1); the job's schedule is unchanged.

}  // namespace tcs::poly

namespace tcs {

// A pass a target runs after tiling: its name (for snapshots, --dump-after, the pass
// list) and the function.
struct MappingPass {
  const char* name;
  void (*run)(poly::PolyJob& job);
};

}  // namespace tcs
