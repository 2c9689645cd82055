#pragma once
// The polyhedral passes by name, without isl: what a target picks from (the pipeline's
// common passes are called by Lowering.cpp itself; a target adds its mapping passes, run
// between tiling and AST generation). Each pass is defined in its own poly/*.cpp file;
// its header comment there says what it reads and what it changes.
namespace tcs::poly {

struct PolyJob;

void build_model(PolyJob& job);
void compute_dependences(PolyJob& job);
void compute_schedule(PolyJob& job);
void tile_bands(PolyJob& job);
// CPU mapping: parallel, vector, unroll and register-accumulate marks per loop id.
void mark_cpu_loops(PolyJob& job);
// CPU mapping: cpu.pack, a tensor's tile copied into a local buffer.
void pack_tensors(PolyJob& job);

}  // namespace tcs::poly

namespace tcs {

// A pass a target runs after tiling: its name (for snapshots, --dump-after, the pass
// list) and the function.
struct MappingPass {
  const char* name;
  void (*run)(poly::PolyJob& job);
};

}  // namespace tcs
