#include "poly/ScheduleTree.h"

namespace tcs {

std::string_view loop_role_name(LoopRole role) {
  switch (role) {
    case LoopRole::Scheduled: return "scheduled";
    case LoopRole::Tile: return "tile";
    case LoopRole::Point: return "point";
    case LoopRole::RegisterPoint: return "register point";
  }
  return "scheduled";
}

std::string_view schedule_node_kind_name(ScheduleNode::Kind k) {
  using K = ScheduleNode::Kind;
  switch (k) {
    case K::Domain: return "domain";
    case K::Context: return "context";
    case K::Band: return "band";
    case K::Sequence: return "sequence";
    case K::Set: return "set";
    case K::Filter: return "filter";
    case K::Mark: return "mark";
    case K::Leaf: return "leaf";
    case K::Extension: return "extension";
    case K::Guard: return "guard";
    case K::Expansion: return "expansion";
  }
  return "?";
}

namespace {

void print(const ScheduleNode& n, int depth, std::string& out, std::vector<ScheduleLine>* lines) {
  if (n.kind == ScheduleNode::Kind::Leaf) return;
  if (lines) lines->push_back({&n, -1});
  out += std::string(size_t(depth) * 2, ' ');
  out += schedule_node_kind_name(n.kind);
  if (n.kind == ScheduleNode::Kind::Band) {
    out += " " + std::string(loop_role_name(n.role));
    for (size_t i = 0; i < n.members.size(); ++i) {
      const BandMember& m = n.members[i];
      if (lines) lines->push_back({&n, int(i)});
      // Loops get their names when the AST is built; before that a member is its position.
      std::string label = m.loop_id >= 0 ? "L" + std::to_string(m.loop_id) : "dim " + std::to_string(i);
      out += "\n" + std::string(size_t(depth) * 2 + 2, ' ') + label + ": " + m.schedule;
      std::string flags;
      if (m.coincident) flags += " coincident";
      if (n.permutable) flags += " permutable";
      if (i < n.tile_sizes.size() && n.tile_sizes[i] > 0) flags += " tile=" + std::to_string(n.tile_sizes[i]);
      if (m.parallel) flags += " parallel";
      if (m.vector_width) flags += " vector=" + std::to_string(m.vector_width);
      if (m.unroll) flags += m.unroll < 0 ? std::string(" unroll=full") : " unroll=" + std::to_string(m.unroll);
      if (!flags.empty()) out += "  [" + flags.substr(1) + "]";
    }
  } else if (!n.text.empty()) {
    out += " " + n.text;
  }
  out += "\n";
  for (const ScheduleNode& c : n.children) print(c, depth + 1, out, lines);
}

}  // namespace

std::string schedule_tree_to_string(const ScheduleNode& root, std::vector<ScheduleLine>* lines) {
  std::string out;
  print(root, 0, out, lines);
  return out;
}

}  // namespace tcs
