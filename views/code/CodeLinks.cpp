#include "views/code/CodeLinks.h"

#include <functional>

namespace tcs {

CodeLinks::CodeLinks(const LoopNest& nest) {
  for (const PolyStmt& s : nest.stmts) source_of_.push_back(s.source_stmt);
  std::vector<int> open;  // loop ids enclosing the node being visited
  std::function<void(const LoopNode&)> visit = [&](const LoopNode& n) {
    bool loop = n.kind == LoopNode::Kind::For && n.loop_id >= 0;
    if (loop) open.push_back(n.loop_id);
    if (n.kind == LoopNode::Kind::Call)
      for (int id : open) under_loop_[id].insert(n.stmt);
    for (const LoopNode& c : n.children) visit(c);
    for (const LoopNode& c : n.else_children) visit(c);
    if (loop) open.pop_back();
  };
  visit(nest.root);
}

std::set<int> CodeLinks::source_statements(const LineOrigin& origin) const {
  std::set<int> out;
  auto add = [&](int stmt) {
    if (stmt >= 0 && stmt < int(source_of_.size()) && source_of_[size_t(stmt)] >= 0) out.insert(source_of_[size_t(stmt)]);
  };
  if (origin.stmt >= 0) {
    add(origin.stmt);
  } else if (auto it = under_loop_.find(origin.loop_id); it != under_loop_.end()) {
    for (int s : it->second) add(s);
  }
  return out;
}

bool CodeLinks::generated_by(const LineOrigin& origin, int source_stmt) const {
  return origin.stmt >= 0 && origin.stmt < int(source_of_.size()) && source_of_[size_t(origin.stmt)] == source_stmt;
}

GeneratedText schedule_tree_text(const ScheduleNode& root, const LoopNest& nest) {
  std::vector<ScheduleLine> lines;
  GeneratedText g;
  g.text = schedule_tree_to_string(root, &lines);
  for (const ScheduleLine& l : lines) {
    LineOrigin o;
    if (l.member >= 0) o.loop_id = l.node->members[size_t(l.member)].loop_id;
    if (l.node->statements.size() == 1)
      for (size_t s = 0; s < nest.stmts.size(); ++s)
        if (nest.stmts[s].name == l.node->statements[0]) o.stmt = int(s);
    g.lines.push_back(o);
  }
  return g;
}

}  // namespace tcs
