#pragma once
// How a scheduled kernel's statements are arranged, for the fusion explorer: which
// statements share their outermost loop (a fused group), which feed which (a tensor one
// writes and a later one reads or updates), and the loop structure without loop bodies.
// Plain data from the loop nest; nothing here needs isl.
#include <string>
#include <vector>

#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "loopnest/LoopNest.h"

namespace tcs {

struct StatementGraph {
  struct Node {
    std::string name;  // "S1", "S0_init"
    int source_stmt = -1;
    bool is_init = false;
    int group = -1;  // 0, 1, ... in execution order
  };
  struct Edge {
    int from = -1, to = -1;  // nodes: the producer runs first in the source
    std::string tensor;
  };
  std::vector<Node> nodes;  // as LoopNest::stmts
  std::vector<Edge> edges;  // one per producer, consumer and tensor
  int groups = 0;
  // One line per loop, pack and statement, indented two spaces a level:
  // "for c1 in 0..63 step 32  parallel", "pack B", "S0".
  std::vector<std::string> loops;
};

StatementGraph statement_graph(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest);

}  // namespace tcs
