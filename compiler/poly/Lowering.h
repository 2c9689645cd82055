#pragma once
// From a checked def to a LoopNest through isl: the lowering pipeline of ARCHITECTURE.md
// §4. The result is plain data; isl stays inside compiler/poly/*.cpp.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "loopnest/LoopNest.h"
#include "options/MappingOptions.h"
#include "poly/Passes.h"
#include "poly/ScheduleTree.h"
#include "support/Expected.h"

namespace tcs {

struct LoweringResult {
  PolyModelInfo model;
  std::vector<PassSnapshot> passes;  // in pipeline order
  LoopNest nest;
};

// The passes, in order, for a target's mapping passes; --dump-after and the IDE's pass
// list use these names.
std::vector<std::string> lowering_pass_names(const std::vector<MappingPass>& mapping);

// model -> dependences -> schedule -> tile -> the target's mapping passes -> ast.
// `cancel`, when set, is polled between passes (and bounds isl's work); a cancelled job
// returns a Cancelled error. Options the kernel refuses are Options errors. With
// `symbolic_sizes` the nest keeps the sizes as parameters (LoopNest::params) and holds for
// every size satisfying size_conditions; `shapes` still guide the choices (tile sizes that
// fit, spans); a kernel whose ranges are not affine in its sizes is a Sizes error.
Expected<LoweringResult> lower_to_loop_nest(const SemaDef& def, const DefShapes& shapes,
                                            const MappingOptions& options, const std::vector<MappingPass>& mapping,
                                            const std::atomic<bool>* cancel = nullptr, bool symbolic_sizes = false);

}  // namespace tcs
