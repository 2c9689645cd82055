#pragma once
// Readable C99 for a LoopNest: what the IDE shows beside the source and what an export
// bundle carries. Sizes are folded in as constants (the kernel is specialised to them),
// or, for a nest lowered with symbolic sizes, are the function's first arguments (then it
// returns 0, or 1 without writing anything when the sizes break a condition of
// size_conditions). Every loop line carries its loop id, every statement line its name.
#include <map>
#include <string>
#include <string_view>

#include "codegen/FoldedInitialisations.h"
#include "codegen/GeneratedText.h"
#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "loopnest/LoopNest.h"

namespace tcs {

// `node_lines`, when given, receives the 1-based line of every For and Call node: the
// LLVM backend uses them as debug locations, so IR and assembly map back through the C.
// `folds`, when given, are the initialisations the LLVM code folds into its register
// tiles: the C leaves those nests out and starts each such sum from zero where it begins.
GeneratedText generate_c(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest,
                         std::map<const LoopNode*, int>* node_lines = nullptr, bool symbolic_sizes = false,
                         const FoldedInitialisations* folds = nullptr);

// A user's tensor or def name as the C text spells it: unchanged, unless C, its headers or
// the generator already use it (a keyword, "expf", "c0", "B_pack0", anything "tcs_..."):
// then "tcs_user_" + name, a prefix no other name has.
std::string c_identifier(std::string_view name);

// The kernel's declaration as C spells it: "void NAME(tensors)" with one pointer per tensor
// (SemaDef::tensors order), const for inputs; with symbolic sizes "int NAME(int64_t SIZE
// ..., tensors)". `restrict` in the C text, left out where C++ reads it too.
std::string c_signature(const SemaDef& def, bool restrict_pointers, bool symbolic_sizes);

}  // namespace tcs
