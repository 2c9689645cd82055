#pragma once
// The links between source statements, schedule loops and lines of generated text, read
// from node ids the compiler wrote (LineOrigin), never from the text: a statement marks
// exactly the lines it generated, a line lights up exactly the statements it runs.
#include <map>
#include <set>
#include <vector>

#include "codegen/GeneratedText.h"
#include "loopnest/LoopNest.h"
#include "poly/ScheduleTree.h"

namespace tcs {

class CodeLinks {
 public:
  CodeLinks() = default;
  explicit CodeLinks(const LoopNest& nest);

  // Source statements (SemaDef::stmts indices) behind a line: its statement's, or every
  // statement run inside its loop.
  std::set<int> source_statements(const LineOrigin& origin) const;
  // Whether the line executes (part of) source statement `source_stmt`.
  bool generated_by(const LineOrigin& origin, int source_stmt) const;

 private:
  std::vector<int> source_of_;                  // LoopNest::stmts index -> source statement
  std::map<int, std::set<int>> under_loop_;     // loop id -> LoopNest::stmts inside it
};

// The schedule tree as text with a LineOrigin per line: band members carry their loop
// id, and a node whose subtree runs a single statement carries that statement.
GeneratedText schedule_tree_text(const ScheduleNode& root, const LoopNest& nest);

}  // namespace tcs
