#include "loopnest/LoopNest.h"

#include <algorithm>

#include "support/StableHash.h"

namespace tcs {

std::string lexpr_to_string(const LExpr& e, const LoopNest& nest, const std::vector<int64_t>* param_values,
                            bool c_macros, const std::vector<std::string>* param_names) {
  using Op = LExpr::Op;
  auto a = [&](size_t i) { return lexpr_to_string(e.args[i], nest, param_values, c_macros, param_names); };
  std::string prefix = c_macros ? "tcs_" : "";
  auto bin = [&](const char* op) { return "(" + a(0) + " " + op + " " + a(1) + ")"; };
  switch (e.op) {
    case Op::Int: return std::to_string(e.value);
    case Op::Iter: return nest.iter_names[size_t(e.value)];
    case Op::Param:
      if (param_values) return std::to_string((*param_values)[size_t(e.value)]);
      return (param_names ? *param_names : nest.params)[size_t(e.value)];
    case Op::Add: return bin("+");
    case Op::Sub: return bin("-");
    case Op::Mul: return bin("*");
    case Op::Neg: return "(-" + a(0) + ")";
    case Op::FloorDiv: return prefix + "floord(" + a(0) + ", " + a(1) + ")";
    case Op::ExactDiv: return bin("/");
    case Op::Rem: return bin("%");
    case Op::Min: return prefix + "min(" + a(0) + ", " + a(1) + ")";
    case Op::Max: return prefix + "max(" + a(0) + ", " + a(1) + ")";
    case Op::Select: return "(" + a(0) + " ? " + a(1) + " : " + a(2) + ")";
    case Op::Eq: return bin("==");
    case Op::Le: return bin("<=");
    case Op::Lt: return bin("<");
    case Op::Ge: return bin(">=");
    case Op::Gt: return bin(">");
    case Op::And: return bin("&&");
    case Op::Or: return bin("||");
  }
  return "?";
}

namespace {

void print(const LoopNode& n, const LoopNest& nest, int depth, std::string& out) {
  std::string pad(size_t(depth) * 2, ' ');
  switch (n.kind) {
    case LoopNode::Kind::Block:
      for (const LoopNode& c : n.children) print(c, nest, depth, out);
      return;
    case LoopNode::Kind::For: {
      const std::string& it = nest.iter_names[size_t(n.iter)];
      out += pad + "for (" + it + " = " + lexpr_to_string(n.init, nest) + "; " + it + " <= " +
             lexpr_to_string(n.upper, nest) + "; " + it + " += " + std::to_string(n.stride) + ")";
      std::string notes;
      if (n.loop_id >= 0) notes += " L" + std::to_string(n.loop_id);
      if (n.annot.parallel) notes += " parallel";
      if (n.annot.partial_totals) notes += " partial-totals=" + std::to_string(n.annot.partial_totals);
      if (n.annot.vector_width) notes += " vector=" + std::to_string(n.annot.vector_width);
      if (n.annot.reduction) notes += " reduction";
      if (n.annot.unroll) notes += n.annot.unroll < 0 ? std::string(" unroll=full") : " unroll=" + std::to_string(n.annot.unroll);
      if (n.annot.register_tile) notes += " register-tile";
      if (n.annot.accumulate_in_registers) notes += " accumulate-in-registers";
      if (n.annot.fetch_ahead) notes += " fetch-ahead=" + std::to_string(n.annot.fetch_ahead);
      out += "  //" + notes + "\n";
      for (const LoopNode& c : n.children) print(c, nest, depth + 1, out);
      return;
    }
    case LoopNode::Kind::If:
      out += pad + "if " + lexpr_to_string(n.cond, nest) + "\n";
      for (const LoopNode& c : n.children) print(c, nest, depth + 1, out);
      if (!n.else_children.empty()) {
        out += pad + "else\n";
        for (const LoopNode& c : n.else_children) print(c, nest, depth + 1, out);
      }
      return;
    case LoopNode::Kind::Pack: {
      const PackSite& p = nest.packs[size_t(n.pack)];
      out += pad + (p.local ? "local " : "pack ") + p.name + "[";
      for (size_t d = 0; d < p.size.size(); ++d)
        out += (d ? ", " : "") + lexpr_to_string(p.offset[d], nest) + " +: " + std::to_string(p.size[d]);
      out += "] as " + p.name + "_pack" + std::to_string(n.pack);
      // The identity order is the tensor's own, as an empty one: one program, one text.
      bool identity = true;
      for (size_t d = 0; d < p.order.size(); ++d) identity = identity && p.order[d] == int(d);
      if (!identity) {
        out += " order";
        for (size_t d = 0; d < p.order.size(); ++d) out += (d ? "," : " ") + std::to_string(p.order[d]);
      }
      if (p.transposes()) out += " blocks of " + std::to_string(p.copy_block);
      if (p.row_pad) out += " row pad " + std::to_string(p.row_pad);
      if (p.ahead_iter >= 0)
        out += " next box fetched ahead (" + nest.iter_names[size_t(p.ahead_iter)] + " + " + std::to_string(p.ahead_step) +
               ", over " + std::to_string(p.ahead_tiles) + " tiles)";
      out += "\n";
      for (const LoopNode& c : n.children) print(c, nest, depth + 1, out);
      return;
    }
    case LoopNode::Kind::Call: {
      out += pad + nest.stmts[size_t(n.stmt)].name + "(";
      for (size_t i = 0; i < n.args.size(); ++i) out += (i ? ", " : "") + lexpr_to_string(n.args[i], nest);
      out += ")";
      const std::vector<int64_t>& first = nest.stmts[size_t(n.stmt)].reduction_first;
      for (size_t i = 0; i < first.size(); ++i) out += (i ? "," : "  // sums begin at ") + std::to_string(first[i]);
      out += "\n";
      return;
    }
  }
}

}  // namespace

std::vector<std::string> local_temporaries(const LoopNest& nest) {
  std::vector<std::string> names;
  for (const PackSite& p : nest.packs)
    if (p.local && std::find(names.begin(), names.end(), p.name) == names.end()) names.push_back(p.name);
  return names;
}

namespace {

void add_calls(const LoopNode& n, std::vector<int>& out) {
  if (n.kind == LoopNode::Kind::Call) out.push_back(n.stmt);
  for (const LoopNode& c : n.children) add_calls(c, out);
  for (const LoopNode& c : n.else_children) add_calls(c, out);
}

}  // namespace

std::vector<int> calls_below(const LoopNode& n) {
  std::vector<int> out;
  add_calls(n, out);
  return out;
}

std::string loop_nest_to_string(const LoopNest& nest) {
  std::string out;
  if (nest.stream_outputs) out += "// outputs only written: stored past the caches where aligned (cpu.streamStores)\n";
  print(nest.root, nest, 0, out);
  return out;
}

std::string program_key(const LoopNest& nest) { return stable_hash_hex(loop_nest_to_string(nest)); }

}  // namespace tcs
