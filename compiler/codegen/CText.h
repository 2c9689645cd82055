#pragma once
// Readable C99 for a LoopNest: what the IDE shows beside the source and what an export
// bundle carries. Sizes are folded in as constants (the kernel is specialised to them),
// every loop line carries its loop id and every statement line its statement name.
#include <map>
#include <string>
#include <string_view>

#include "codegen/GeneratedText.h"
#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "loopnest/LoopNest.h"

namespace tcs {

// `node_lines`, when given, receives the 1-based line of every For and Call node: the
// LLVM backend uses them as debug locations, so IR and assembly map back through the C.
GeneratedText generate_c(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest,
                         std::map<const LoopNode*, int>* node_lines = nullptr);

// A user's tensor or def name as the C text spells it: unchanged, unless C, its headers or
// the generator already use it (a keyword, "expf", "c0", "B_pack0", anything "tcs_..."):
// then "tcs_user_" + name, a prefix no other name has.
std::string c_identifier(std::string_view name);

// The kernel's parameters as C declares them: one pointer per tensor (SemaDef::tensors
// order), const for inputs; `restrict` in the C text, left out where C++ reads it too.
std::string c_parameters(const SemaDef& def, bool restrict_pointers);

}  // namespace tcs
