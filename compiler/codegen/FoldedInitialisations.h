#pragma once
// Which reductions start their sums inside their register tiles, so that the output's
// zeroing nest does not run. Decided once, by the LLVM emitter's register-tile plan
// (folded_initialisations in LlvmEmitter.h), and followed by both the LLVM IR and the C
// text: the C the IDE shows and an export carries does what the object code does.
#include <vector>

namespace tcs {

struct FoldedInitialisations {
  std::vector<bool> starts_from_identity;  // per LoopNest statement: its sum starts at reduction_first
  std::vector<bool> skipped;               // per top-level nest (LoopNest::root.children): not run
};

}  // namespace tcs
