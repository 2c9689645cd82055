#pragma once
// A generated text (C, LLVM IR, assembly, CUDA, PTX) with, for each line, the schedule
// loop and the polyhedral statement it came from: the exact map the IDE cross-highlights
// with, never a regex over the text.
#include <string>
#include <vector>

namespace tcs {

struct LineOrigin {
  int loop_id = -1;  // schedule band member (LoopNode::loop_id), -1 when none
  int stmt = -1;     // index into LoopNest::stmts, -1 when none
};

// The time one compiler phase took, as the CLI's --time-passes and the IDE's status bar show.
struct PhaseTime {
  std::string phase;
  double milliseconds = 0;
};

struct GeneratedText {
  std::string text;
  std::vector<LineOrigin> lines;  // one per line of `text`
};

}  // namespace tcs
