#pragma once
// Plain-data answers about a compiled kernel's iteration space, for the IDE's explorers:
// the integer points of every statement (at the small sizes the kernel was compiled with
// for the view), when each runs, in which tile, on which thread and in which vector lane,
// the dependences among them and whether a schedule breaks them, and which loops carry
// which dependences. The inputs are texts a LoweringResult already holds; isl stays in
// poly/IterationSpace.cpp.
#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "poly/Lowering.h"
#include "support/Expected.h"

namespace tcs {

enum class DependenceKind { Flow, Anti, Output, Reduction };
std::string_view dependence_kind_name(DependenceKind k);  // "flow", "anti", "output", "reduction"

struct SpacePoint {
  int64_t time = 0;  // rank in execution order over every statement's points; equal times run together
  int tile = -1;     // index into StatementSpace::tiles; -1 when no loop around it is a tile loop
  int thread = -1;   // the thread that runs it (the parallel loop split in contiguous chunks); -1: none
  int lane = -1;     // its place in a vector (the vectorised loop's value modulo the width); -1: scalar
};

struct StatementSpace {
  std::string name;  // "S0", "S0_init"
  int source_stmt = -1;
  std::vector<std::string> dims;   // iterator names
  std::vector<SpacePoint> points;  // in lexicographic order of their coordinates
  std::vector<int64_t> coords;     // dims.size() per point, point after point
  const int64_t* coords_of(size_t point) const { return coords.data() + point * dims.size(); }
  std::vector<std::vector<int64_t>> tiles;  // each tile's tile-loop values, in execution order
  int vector_width = 0;  // of the vectorised loop over it, 0 when none
};

// One dependence between two statement instances. Only direct ones are listed: each
// source instance to its nearest sink (in textual order) per kind and statement pair, so a
// reduction over k shows k -> k+1, not every later k.
struct SpaceDependence {
  DependenceKind kind = DependenceKind::Flow;
  int from_stmt = -1, from_point = -1;  // StatementSpace and SpacePoint indices
  int to_stmt = -1, to_point = -1;
  bool crosses_tile = false;  // the ends lie in different tiles (or in statements tiled apart)
  // The schedule runs the sink before or together with its source. A reduction's own
  // dependences may run in any order (the combine is reassociated) but never together.
  bool violated = false;
};

struct IterationSpace {
  std::vector<StatementSpace> statements;
  std::vector<SpaceDependence> dependences;
  int64_t times = 0;  // distinct execution times (the scrubber's range)
  int threads = 1;
  // Loop id (BandMember::loop_id) -> the dependence kinds that loop carries: instances
  // with the same values of every outer loop and different values of this one.
  std::map<int, std::vector<DependenceKind>> carried;
  int64_t violations = 0;
  bool what_if = false;  // judged against SpaceQuery::schedule, not the compiled one
  std::vector<std::string> notes;  // dependences left out, a what-if schedule's gaps
};

struct SpaceQuery {
  int threads = 1;                    // how many chunks the parallel loop is split into
  size_t max_points = 1'000'000;      // more is an error naming the count and the sizes to lower
  size_t max_dependences = 400'000;   // more are left out, with a note
  // A schedule to judge instead of the compiled one: an isl union map from statement
  // instances to times, "{ S0[i, j] -> [j, i]; S1[i] -> [i, 1] }". Empty: the compiled one.
  std::string schedule;
  const std::atomic<bool>* cancel = nullptr;  // polled while enumerating; a Cancelled error
};

// The points, times, tiles and dependences of a lowered kernel. The kernel must have been
// lowered with fixed sizes (not symbolic). Errors: Sizes (too many points), Options (a
// what-if schedule isl cannot read, naming what is wrong), Cancelled.
Expected<IterationSpace> iteration_space(const LoweringResult& lowered, const SpaceQuery& query = {});

// How much of each tensor one tile touches, at the sizes the kernel was lowered with: for
// the innermost tile band over each statement, the largest footprint over its tiles.
struct TileFootprint {
  std::string statement;  // "S0"
  std::string tensor;
  int64_t elements = 0;  // of the box around what one tile reads or writes
};
Expected<std::vector<TileFootprint>> tile_footprints(const LoweringResult& lowered);

}  // namespace tcs
