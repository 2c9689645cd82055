// Groups are read from the nest's top level: every outermost loop is one group, and a
// statement outside any loop is a group of its own. Guards and packs at the top level are
// looked through, so a pack around two loops still shows two groups.
#include "loopnest/StatementGraph.h"

#include <set>

#include "loopnest/Accesses.h"

namespace tcs {

namespace {

void assign_group(const LoopNode& n, int group, StatementGraph& g) {
  if (n.kind == LoopNode::Kind::Call) {
    if (n.stmt >= 0 && size_t(n.stmt) < g.nodes.size() && g.nodes[size_t(n.stmt)].group < 0) g.nodes[size_t(n.stmt)].group = group;
    return;
  }
  for (const LoopNode& c : n.children) assign_group(c, group, g);
  for (const LoopNode& c : n.else_children) assign_group(c, group, g);
}

void top_level(const LoopNode& n, StatementGraph& g) {
  if (n.kind == LoopNode::Kind::For || n.kind == LoopNode::Kind::Call) {
    assign_group(n, g.groups++, g);
    return;
  }
  for (const LoopNode& c : n.children) top_level(c, g);
  for (const LoopNode& c : n.else_children) top_level(c, g);
}

void skeleton(const LoopNode& n, const LoopNest& nest, int depth, std::vector<std::string>& out) {
  std::string pad(size_t(depth) * 2, ' ');
  switch (n.kind) {
    case LoopNode::Kind::Block:
    case LoopNode::Kind::If:  // guards are detail here: their bodies print at the same depth
      for (const LoopNode& c : n.children) skeleton(c, nest, depth, out);
      for (const LoopNode& c : n.else_children) skeleton(c, nest, depth, out);
      return;
    case LoopNode::Kind::For: {
      std::string line = pad + "for " + nest.iter_names[size_t(n.iter)] + " in " + lexpr_to_string(n.init, nest) + ".." +
                         lexpr_to_string(n.upper, nest);
      if (n.stride != 1) line += " step " + std::to_string(n.stride);
      if (n.annot.parallel) line += "  parallel";
      if (n.annot.vector_width) line += "  vector " + std::to_string(n.annot.vector_width);
      if (n.annot.unroll) line += n.annot.unroll < 0 ? std::string("  unrolled") : "  unroll " + std::to_string(n.annot.unroll);
      out.push_back(std::move(line));
      for (const LoopNode& c : n.children) skeleton(c, nest, depth + 1, out);
      return;
    }
    case LoopNode::Kind::Pack: {
      const PackSite& p = nest.packs[size_t(n.pack)];
      out.push_back(pad + (p.local ? "local " : "pack ") + p.name);
      for (const LoopNode& c : n.children) skeleton(c, nest, depth + 1, out);
      return;
    }
    case LoopNode::Kind::Call:  // once per place it is called from (a guard's two branches)
      out.push_back(pad + nest.stmts[size_t(n.stmt)].name);
      return;
  }
}

}  // namespace

StatementGraph statement_graph(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest) {
  StatementGraph g;
  for (const PolyStmt& s : nest.stmts) g.nodes.push_back({s.name, s.source_stmt, s.is_init, -1});
  top_level(nest.root, g);

  // What each statement writes and reads (the nest may call a statement from several
  // places; the tensors are the same at each).
  std::vector<std::set<int>> writes(g.nodes.size()), reads(g.nodes.size());
  for (const StatementAccesses& sa : loop_nest_accesses(def, shapes, nest)) {
    if (sa.stmt < 0 || size_t(sa.stmt) >= g.nodes.size()) continue;
    for (const TensorAccess& a : sa.accesses) (a.write ? writes : reads)[size_t(sa.stmt)].insert(a.tensor);
  }
  // Source order: a statement's initialisation comes just before it.
  auto order = [&](int k) { return g.nodes[size_t(k)].source_stmt * 2 + (g.nodes[size_t(k)].is_init ? 0 : 1); };
  for (size_t p = 0; p < g.nodes.size(); ++p)
    for (size_t c = 0; c < g.nodes.size(); ++c) {
      if (p == c || order(int(p)) >= order(int(c))) continue;
      // An initialisation feeds only its own reduction, which then updates every element it
      // wrote: later readers read the reduction's values.
      if (g.nodes[p].is_init && g.nodes[c].source_stmt != g.nodes[p].source_stmt) continue;
      for (int t : writes[p])
        if (reads[c].count(t) || (g.nodes[p].is_init && writes[c].count(t)))
          g.edges.push_back({int(p), int(c), def.tensors[size_t(t)].name});
    }
  skeleton(nest.root, nest, 0, g.loops);
  return g;
}

}  // namespace tcs
