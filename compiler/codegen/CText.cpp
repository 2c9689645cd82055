#include "codegen/CText.h"

#include <cmath>
#include <cstdio>
#include <set>

#include "codegen/CBuiltins.h"
#include "codegen/Layout.h"
#include "codegen/StmtSemantics.h"
#include "lang/Builtins.h"

namespace tcs {
namespace {

using ast::Expr;
using ast::ExprKind;
using ast::NameRef;

// Whether builtin call `e`, which C's math library lacks, is written in float as the
// compiled kernel computes it (a float32 rsqrt; LlvmExpressions.cpp).
bool written_in_float(const Expr& e) {
  return e.type == ScalarType::Float32 && !c_float_builtin_call(e.name, "x").empty();
}

// The builtins a def calls that C's math library lacks, where not written in float: the C
// text defines them itself.
void builtins_outside_libm(const Expr& e, std::set<std::string>& out) {
  if (e.kind == ExprKind::Access && e.ref == NameRef::Builtin && !builtin_in_libm(e.name) && !written_in_float(e))
    out.insert(e.name);
  for (const auto& a : e.args) builtins_outside_libm(*a, out);
}

// Names C or the generated code already uses: C keywords and types, what <math.h>,
// <stdint.h> and <stdbool.h> declare, and the generator's own patterns.
bool reserved_in_c(std::string_view n) {
  static const char* words[] = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
      "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
      "true", "false", "main", "errno", "INFINITY", "NAN", "HUGE_VAL", "int8_t", "int16_t", "int32_t", "int64_t",
      "uint8_t", "uint16_t", "uint32_t", "uint64_t", "INT64_MIN", "UINT64_MAX", "_Bool", "_Float16", "asm",
      "omp", "v", "i", "j0", "j1", "y0", "y1", "gamma"};
  for (const char* w : words)
    if (n == w) return true;
  if (n.rfind("tcs_", 0) == 0 || n.rfind("_", 0) == 0) return true;
  if (builtin_find(n) || (n.size() > 1 && n.back() == 'f' && builtin_find(n.substr(0, n.size() - 1)))) return true;
  // Loop iterators (c0, c1, ...) and pack loops (p0, ...) the generator names.
  if (n.size() > 1 && (n[0] == 'c' || n[0] == 'p') && n.find_first_not_of("0123456789", 1) == std::string_view::npos) return true;
  if (size_t at = n.rfind("_pack"); at != std::string_view::npos && at + 5 < n.size() &&
                                    n.find_first_not_of("0123456789", at + 5) == std::string_view::npos)
    return true;
  return false;
}

}  // namespace

std::string c_identifier(std::string_view name) {
  return reserved_in_c(name) ? "tcs_user_" + std::string(name) : std::string(name);
}

std::string c_signature(const SemaDef& def, bool restrict_pointers, bool symbolic_sizes) {
  std::string s;
  if (symbolic_sizes)
    for (const std::string& p : def.size_params) s += (s.empty() ? "" : ", ") + std::string("int64_t ") + c_identifier(p);
  for (const SemaTensor& t : def.tensors)
    s += (s.empty() ? "" : ", ") + std::string(t.role == TensorRole::Input ? "const " : "") + c_type_name(t.type) +
         (restrict_pointers ? "* restrict " : "* ") + c_identifier(t.name);
  return std::string(symbolic_sizes ? "int " : "void ") + c_identifier(def.name) + "(" + (s.empty() ? "void" : s) + ")";
}

namespace {

// Small functions the C text defines when it uses them, so every operation means what the
// interpreter means (LANGUAGE.md): integers wrap, float-to-int conversion saturates with
// NaN giving 0, integer division by zero gives 0 (the interpreter reports it; the LLVM
// kernel sets an error bit), INT_MIN / -1 wraps.
struct CHelper {
  const char* name;
  const char* text;
};

constexpr CHelper kHelpers[] = {
    {"tcs_div_s", "static inline int64_t tcs_div_s(int64_t a, int64_t b) { return b == 0 ? 0 : b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b; }"},
    {"tcs_rem_s", "static inline int64_t tcs_rem_s(int64_t a, int64_t b) { return b == 0 || b == -1 ? 0 : a % b; }"},
    {"tcs_div_u", "static inline uint64_t tcs_div_u(uint64_t a, uint64_t b) { return b == 0 ? 0 : a / b; }"},
    {"tcs_rem_u", "static inline uint64_t tcs_rem_u(uint64_t a, uint64_t b) { return b == 0 ? 0 : a % b; }"},
    {"tcs_f2s", "static inline int64_t tcs_f2s(double x, int64_t lo, int64_t hi) {\n"
                "  return x != x ? 0 : x <= (double)lo ? lo : x >= (double)hi ? hi : (int64_t)x;\n}"},
    {"tcs_f2u", "static inline uint64_t tcs_f2u(double x, uint64_t hi) {\n"
                "  return x != x || x <= 0 ? 0 : x >= (double)hi ? hi : (uint64_t)x;\n}"},
};

class CWriter {
 public:
  CWriter(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest, std::map<const LoopNode*, int>* lines,
          bool symbolic, const FoldedInitialisations* folds)
      : def_(def), shapes_(shapes), nest_(nest), node_lines_(lines), layout_(kernel_layout(def, shapes, symbolic)),
        folds_(folds) {
    for (const std::string& p : nest.params) {
      if (symbolic) param_names_.push_back(c_identifier(p));
      else param_values_.push_back(shapes.sizes.at(p));
    }
    pack_of_.assign(def.tensors.size(), -1);
  }

  GeneratedText run() {
    // The body first: it decides which helpers the top of the file defines.
    body();
    GeneratedText body_text = std::move(out_);
    out_ = {};
    if (layout_.symbolic)
      line("// Generated by TC Studio from def " + def_.name + "; sizes are arguments (tiles chosen for " +
           sizes_describe(def_, shapes_.sizes) + ").");
    else
      line("// Generated by TC Studio from def " + def_.name + " (" + sizes_describe(def_, shapes_.sizes) + ").");
    line("// Loops are tagged with their schedule loop ids (L<n>), statements with S<k>.");
    std::set<std::string> own;
    for (const SemaStmt& st : def_.stmts) builtins_outside_libm(*st.ast->rhs, own);
    for (const char* posix : {"j0", "j1", "y0", "y1"})
      if (own.count(posix)) {
        line("#define _DEFAULT_SOURCE  // j0, j1, y0, y1");
        break;
      }
    line("#include <math.h>");
    line("#include <stdbool.h>");
    line("#include <stdint.h>");
    line("");
    line("#define tcs_floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))");
    // NaN and signed zeros as the interpreter: min(NaN, x) is NaN, min(x, NaN) is x.
    line("#define tcs_min(a, b) ((b) < (a) ? (b) : (a))");
    line("#define tcs_max(a, b) ((a) < (b) ? (b) : (a))");
    line("");
    for (const CHelper& h : kHelpers)
      if (helpers_.count(h.name)) lines(h.text);
    if (!helpers_.empty()) line("");
    for (const std::string& b : own) {
      lines(c_builtin_function(b, "tcs_builtin_" + b, true));
      line("");
    }
    int shift = int(out_.lines.size());
    out_.text += body_text.text;
    out_.lines.insert(out_.lines.end(), body_text.lines.begin(), body_text.lines.end());
    if (node_lines_)
      for (auto& [node, at] : *node_lines_) at += shift;
    return std::move(out_);
  }

 private:
  void lines(const std::string& text) {
    size_t at = 0;
    for (size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) line(text.substr(at, nl - at));
    if (at < text.size()) line(text.substr(at));
  }

  void body() {
    line(c_signature(def_, true, layout_.symbolic) + " {");
    // A temporary kept in local buffers stays a parameter, so every caller passes every
    // tensor alike; say so rather than leave an unused-parameter warning in a user's build.
    for (const std::string& t : local_temporaries(nest_)) line("  (void)" + c_identifier(t) + ";  // kept in local buffers");
    if (nest_.stream_outputs)
      line("  // cpu.streamStores: the compiled kernel stores outputs it never reads past the caches when they start "
           "on a cache line; this C stores them the usual way");
    if (layout_.symbolic) {
      line("  // Sizes that would leave an index range empty or read outside a tensor: nothing runs.");
      for (const SizeCondition& c : size_conditions(def_))
        line("  if (" + c_size_violated(c.nonnegative) + ") return 1;  // " + c.what);
    }
    for (size_t i = 0; i < nest_.root.children.size(); ++i) {
      if (folds_ && i < folds_->skipped.size() && folds_->skipped[i]) {
        std::vector<int> calls = calls_below(nest_.root.children[i]);
        std::set<int> named;
        std::string names;
        for (int k : calls)
          if (named.insert(k).second) names += (names.empty() ? "" : ", ") + nest_.stmts[size_t(k)].name;
        line("  // " + names + ": not run; the sums below start from zero where they begin (register tiles)",
             LineOrigin{-1, calls.empty() ? -1 : calls[0]});
        continue;
      }
      node(nest_.root.children[i], 1);
    }
    if (layout_.symbolic) line("  return 0;");
    line("}");
  }

  void line(const std::string& s, LineOrigin o = {}) {
    out_.text += s + "\n";
    out_.lines.push_back(o);
  }

  std::string lx(const LExpr& e) {
    return lexpr_to_string(e, nest_, layout_.symbolic ? nullptr : &param_values_, true, &param_names_);
  }
  // A size expression as an operand: a number as it is, anything else in parentheses.
  static std::string sx(const SymExpr& e) { return e.constant() ? c_size_expr(e) : "(" + c_size_expr(e) + ")"; }

  void node(const LoopNode& n, int depth) {
    std::string pad(size_t(depth) * 2, ' ');
    switch (n.kind) {
      case LoopNode::Kind::Block:
        // A parallel loop joined into the one around it: a line of its own for the links
        // between the C, the schedule and the source.
        if (n.loop_id >= 0)
          line(pad + "// L" + std::to_string(n.loop_id) + " parallel, joined into the loop above: one hand-off to the threads",
               LineOrigin{n.loop_id, -1});
        for (const LoopNode& c : n.children) node(c, depth);
        return;
      case LoopNode::Kind::For: {
        if (n.annot.partial_totals) return partial_totals(n, depth);
        const std::string& it = nest_.iter_names[size_t(n.iter)];
        std::string tag = "  // L" + std::to_string(n.loop_id);
        if (n.annot.parallel) tag += " parallel";
        if (n.annot.vector_width) tag += " vector(" + std::to_string(n.annot.vector_width) + ")";
        if (n.annot.reduction) tag += " reduction";
        if (n.annot.unroll) tag += n.annot.unroll < 0 ? std::string(" unroll(full)") : " unroll(" + std::to_string(n.annot.unroll) + ")";
        if (n.annot.accumulate_in_registers) tag += " accumulators in registers";
        if (n.annot.fetch_ahead) tag += " fetch-ahead(" + std::to_string(n.annot.fetch_ahead) + ")";  // the LLVM code's prefetches
        LineOrigin o{n.loop_id, -1};
        if (n.annot.parallel) line(pad + "#pragma omp parallel for", o);
        remember(n);
        line(pad + "for (int64_t " + it + " = " + lx(n.init) + "; " + it + " <= " + lx(n.upper) + "; " + it +
                 (n.stride == 1 ? "++" : " += " + std::to_string(n.stride)) + ") {" + tag,
             o);
        for (const LoopNode& c : n.children) node(c, depth + 1);
        line(pad + "}", o);
        return;
      }
      case LoopNode::Kind::If:
        line(pad + "if " + paren(lx(n.cond)) + " {");
        for (const LoopNode& c : n.children) node(c, depth + 1);
        if (!n.else_children.empty()) {
          line(pad + "} else {");
          for (const LoopNode& c : n.else_children) node(c, depth + 1);
        }
        line(pad + "}");
        return;
      case LoopNode::Kind::Call: call(n, pad); return;
      case LoopNode::Kind::Pack: pack(n, depth); return;
    }
  }

  // A total split into parts (LoopAnnotation::partial_totals): the parts on the threads,
  // each from the identity into a copy of its own of the output and then into its row of
  // an array, and the rows into the output in part order.
  void partial_totals(const LoopNode& n, int depth) {
    std::string pad(size_t(depth) * 2, ' '), in = pad + "  ", more = in + "  ";
    const PolyStmt& ps = nest_.stmts[size_t(calls_below(n).at(0))];
    StmtSemantics sem = stmt_semantics(def_, ps);
    const std::string& output = def_.tensors[size_t(sem.lhs_tensor)].name;
    const std::string& it = nest_.iter_names[size_t(n.iter)];
    const std::string parts = std::to_string(n.upper.value + 1), elements = std::to_string(n.annot.partial_totals);
    const std::string each = "for (int64_t tcs_e = 0; tcs_e < " + elements + "; tcs_e++) ";
    const std::string type = c_type_name(sem.type);
    LineOrigin o{n.loop_id, -1};
    remember(n);
    line(pad + "{  // L" + std::to_string(n.loop_id) + " in " + parts + " parts on the threads, each part's " + ps.name +
             " apart, then into " + output + " in part order", o);
    line(in + type + " tcs_parts[" + parts + "][" + elements + "];", o);
    line(in + "#pragma omp parallel for", o);
    line(in + "for (int64_t " + it + " = 0; " + it + " <= " + lx(n.upper) + "; " + it + "++) {  // L" +
             std::to_string(n.loop_id) + " parallel partial totals", o);
    line(more + type + " tcs_total[" + elements + "];", o);
    line(more + each + "tcs_total[tcs_e] = " + (scalar_type_is_float(sem.type) && std::signbit(copy_start_f(sem)) ? std::string("-0.0") : identity(sem)) + ";", o);
    total_ = sem.lhs_tensor;
    for (const LoopNode& c : n.children) node(c, depth + 2);
    total_ = -1;
    line(more + each + "tcs_parts[" + it + "][tcs_e] = tcs_total[tcs_e];", o);
    line(in + "}", o);
    line(in + "for (int64_t " + it + " = 0; " + it + " <= " + lx(n.upper) + "; " + it + "++)", o);
    line(more + each + combined(c_identifier(output) + "[tcs_e]", "tcs_parts[" + it + "][tcs_e]", sem), o);
    line(pad + "}", o);
  }

  // A block with the local copy of the box, then the loops that read it.
  void pack(const LoopNode& n, int depth) {
    std::string pad(size_t(depth) * 2, ' '), in = pad + "  ";
    const PackSite& p = nest_.packs[size_t(n.pack)];
    const TensorLayout& sh = layout_.tensors[size_t(p.tensor)];
    std::string buf = c_identifier(p.name) + "_pack" + std::to_string(n.pack), dims, src, dst;
    std::vector<int64_t> strides = p.strides();
    for (size_t d = 0; d < p.size.size(); ++d) dims += (d ? " x " : "") + std::to_string(p.size[d]);
    remember(n);
    std::string what = dims.empty() ? std::string("scalar") : dims;
    line(pad + "{  // " + (!p.local         ? "pack a " + what + " tile of " + p.name
                           : p.numel() == 1 ? p.name + ": this iteration's element, kept here (the tensor is not used)"
                                            : p.name + ": this iteration's " + what + " part, kept here (the tensor is not used)"));
    line(in + c_type_name(def_.tensors[size_t(p.tensor)].type) + " " + buf + "[" + std::to_string(p.numel()) + "];");
    if (p.local) return body(n, depth, pad);
    // The copy walks the tensor's order; a transposing one goes block by block, as the
    // compiled kernel does (see PackSite::copy_block).
    const size_t rank = p.size.size(), a = rank ? rank - 1 : 0, b = p.order.empty() ? a : size_t(p.order.back());
    std::vector<std::string> origin, lo, end;
    for (size_t d = 0; d < rank; ++d) {
      origin.push_back(paren(lx(p.offset[d])));
      lo.push_back("tcs_max(0, " + sx(sh.lo[d]) + " - " + origin[d] + ")");
      end.push_back("tcs_min(" + std::to_string(p.size[d]) + ", " + sx(sh.lo[d] + sh.extent[d]) + " - " + origin[d] + ")");
      dst += (d ? " + " : "") + ("p" + std::to_string(d)) + (strides[d] == 1 ? "" : " * " + std::to_string(strides[d]));
    }
    std::string indent = in;
    if (p.transposes())
      for (size_t d : {b, a}) {
        std::string q = "q" + std::to_string(d), step = std::to_string(p.copy_block);
        line(indent + "for (int64_t " + q + " = " + lo[d] + "; " + q + " < " + end[d] + "; " + q + " += " + step + ")");
        lo[d] = q, end[d] = "tcs_min(" + end[d] + ", " + q + " + " + step + ")";
        indent += "  ";
      }
    for (size_t d = 0; d < rank; ++d) {
      std::string j = "p" + std::to_string(d);
      line(indent + "for (int64_t " + j + " = " + lo[d] + "; " + j + " < " + end[d] + "; " + j + "++)");
      indent += "  ";
    }
    src = offset(p.tensor, [&](size_t d) { return origin[d] + " + p" + std::to_string(d); });
    line(indent + buf + "[" + (dst.empty() ? "0" : dst) + "] = " + c_identifier(p.name) + "[" + src + "];");
    if (p.ahead_iter >= 0)  // the LLVM code's prefetches (PackSite::ahead_iter): no C of their own
      line(in + "// the tile of " + p.name + " at the next " + nest_.iter_names[size_t(p.ahead_iter)] +
           " is fetched into the cache a few lines per register tile below");
    body(n, depth, pad);
  }

  // The loops below a pack site, reading (and, when local, writing) its buffer.
  void body(const LoopNode& n, int depth, const std::string& pad) {
    const PackSite& p = nest_.packs[size_t(n.pack)];
    int saved = pack_of_[size_t(p.tensor)];
    pack_of_[size_t(p.tensor)] = n.pack;
    for (const LoopNode& c : n.children) node(c, depth + 1);
    pack_of_[size_t(p.tensor)] = saved;
    line(pad + "}");
  }

  // A read of tensor t: the tensor itself, or the buffer of the innermost pack of it.
  template <class Sub>
  std::string read_ref(int t, const std::string& name, Sub sub) {
    int site = pack_of_[size_t(t)];
    if (t == total_) return "tcs_total[" + offset(t, sub) + "]";  // a part's copy of the output, laid out alike
    if (site < 0) return c_identifier(name) + "[" + offset(t, sub) + "]";
    const PackSite& p = nest_.packs[size_t(site)];
    std::vector<int64_t> strides = p.strides();
    std::string s;
    for (size_t d = 0; d < p.size.size(); ++d) {
      std::string c = paren(sub(d) + " - " + paren(lx(p.offset[d])));
      s += (s.empty() ? "" : " + ") + (strides[d] == 1 ? c : c + " * " + std::to_string(strides[d]));
    }
    return c_identifier(name) + "_pack" + std::to_string(site) + "[" + (s.empty() ? "0" : s) + "]";
  }

  void remember(const LoopNode& n) {
    if (node_lines_) (*node_lines_)[&n] = int(out_.lines.size()) + 1;
  }

  // Whether s is the literal 0, in parentheses or converted to int64_t or not.
  static bool is_zero(std::string_view s) {
    for (bool stripped = true; stripped;) {
      stripped = false;
      if (s.starts_with("(int64_t)")) s.remove_prefix(9), stripped = true;
      if (s.size() >= 2 && s.front() == '(' && s.back() == ')' && paren(std::string(s)) == s) s = s.substr(1, s.size() - 2), stripped = true;
    }
    return s == "0";
  }

  // s in parentheses, unless one pair already encloses all of it ("(a) + (b)" is not).
  static std::string paren(const std::string& s) {
    if (s.empty() || s.front() != '(' || s.back() != ')') return "(" + s + ")";
    int depth = 0;
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
      if (depth == 0) return "(" + s + ")";
    }
    return s;
  }

  void call(const LoopNode& n, const std::string& pad) {
    const PolyStmt& ps = nest_.stmts[size_t(n.stmt)];
    StmtSemantics sem = stmt_semantics(def_, ps);
    const SemaStmt& st = def_.stmts[size_t(ps.source_stmt)];
    idx_.clear();
    for (const LExpr& a : n.args) idx_.push_back(lx(a));
    std::string lhs = read_ref(sem.lhs_tensor, def_.tensors[size_t(sem.lhs_tensor)].name, [&](size_t d) { return idx_[d]; });
    LineOrigin o{-1, n.stmt};
    remember(n);
    std::string tag = "  // " + ps.name;
    if (sem.is_init) {
      line(pad + lhs + " = " + identity(sem) + ";" + tag, o);
      return;
    }
    std::string rhs = expr(st.value(), sem.type);
    if (!sem.combines) {
      line(pad + lhs + " = " + rhs + ";" + tag, o);
      return;
    }
    if (folds_ && folds_->starts_from_identity.at(size_t(n.stmt)) &&
        (sem.op == ast::ReduceOp::Sum || sem.op == ast::ReduceOp::Product)) {  // its initialisation is folded here
      std::string begins;
      const std::vector<int64_t>& at = ps.reduction_first;
      for (size_t d = 0; d < at.size(); ++d)
        begins += (d ? " && " : "") + idx_[size_t(st.lhs_rank) + d] + " == " + std::to_string(at[d]);
      const char* op = sem.op == ast::ReduceOp::Sum ? "+" : "*";
      line(pad + lhs + " = (" + begins + " ? " + identity(sem) + " : " + lhs + ") " + op + " " + rhs + ";" + tag, o);
      return;
    }
    line(pad + combined(lhs, rhs, sem) + tag, o);
  }

  // `lhs` combined with the value `v` as a reduction statement does, as one C statement.
  std::string combined(const std::string& lhs, const std::string& v, const StmtSemantics& sem) {
    switch (sem.op) {
      case ast::ReduceOp::Sum:
      case ast::ReduceOp::Product: {
        const char* op = sem.op == ast::ReduceOp::Sum ? "+" : "*";
        if (scalar_type_is_integer(sem.type))  // wraps like the interpreter, never C's undefined overflow
          return lhs + " = " + wrapped(lhs, op, v, sem.type) + ";";
        return lhs + " " + op + "= " + v + ";";
      }
      case ast::ReduceOp::Min:
      case ast::ReduceOp::Max: {
        const char* cmp = sem.op == ast::ReduceOp::Min ? "<" : ">";
        std::string nan = scalar_type_is_float(sem.type) ? " || tcs_v != tcs_v" : "";
        return "{ " + std::string(c_type_name(sem.type)) + " tcs_v = " + v + "; if (tcs_v " + cmp + " " + lhs + nan + ") " +
               lhs + " = tcs_v; }";
      }
      default: return lhs + " = " + v + ";";
    }
  }

  std::string identity(const StmtSemantics& s) {
    if (s.type == ScalarType::UInt64 && s.identity_i == -1) return "UINT64_MAX";
    if (s.identity_i == INT64_MIN) return "INT64_MIN";
    if (!scalar_type_is_float(s.type)) return std::to_string(s.identity_i);
    if (std::isinf(s.identity_f)) return s.identity_f > 0 ? "INFINITY" : "-INFINITY";
    return s.identity_f == 0 ? "0" : "1";
  }

  template <class Sub>
  std::string offset(int t, Sub sub) {
    const TensorLayout& l = layout_.tensors[size_t(t)];
    std::string s;
    for (size_t d = 0; d < l.stride.size(); ++d) {
      std::string c = sub(d);
      // A row loop collapsed into the one inside it (CollapseRows) leaves index 0 behind.
      if (l.lo[d] == SymExpr(0) && is_zero(c)) continue;
      if (!(l.lo[d] == SymExpr(0))) c = "(" + c + " - " + sx(l.lo[d]) + ")";
      std::string term = l.stride[d] == SymExpr(1) ? c : paren(c) + " * " + sx(l.stride[d]);
      s += (s.empty() ? "" : " + ") + term;
    }
    return s.empty() ? "0" : s;
  }

  // The expression converted to type `want`.
  std::string expr(const Expr& e, ScalarType want) { return convert(raw(e), e.type, want); }

  // C's conversions, except float to integer, which saturates (NaN gives 0) as in the
  // interpreter instead of being undefined out of range.
  std::string convert(const std::string& s, ScalarType from, ScalarType to) {
    if (from == to) return s;
    std::string type = c_type_name(to);
    if (scalar_type_is_float(from) && scalar_type_is_integer(to)) {
      int bits = scalar_type_bits(to);
      if (!scalar_type_is_signed(to)) {
        helpers_.insert("tcs_f2u");
        return "(" + type + ")tcs_f2u(" + s + ", " + (bits == 64 ? std::string("UINT64_MAX") : std::to_string((uint64_t(1) << bits) - 1)) + ")";
      }
      helpers_.insert("tcs_f2s");
      std::string lo = bits == 64 ? "INT64_MIN" : std::to_string(-(int64_t(1) << (bits - 1)));
      std::string hi = bits == 64 ? "INT64_MAX" : std::to_string((int64_t(1) << (bits - 1)) - 1);
      return "(" + type + ")tcs_f2s(" + s + ", " + lo + ", " + hi + ")";
    }
    return "(" + type + ")" + paren(s);
  }

  // a op b for integers of type t, wrapping as the interpreter does: computed in an
  // unsigned type (no undefined overflow, no promotion of 8- and 16-bit operands to a
  // signed int), then converted back. Inside an affine subscript, whose range sema has
  // checked, 32- and 64-bit arithmetic stays plain for readability.
  std::string wrapped(const std::string& a, const char* op, const std::string& b, ScalarType t) {
    int bits = scalar_type_bits(t);
    if (subscript_depth_ > 0 && bits >= 32) return "(" + a + " " + op + " " + b + ")";
    std::string u = bits <= 32 ? "uint32_t" : "uint64_t";
    return "(" + std::string(c_type_name(t)) + ")((" + u + ")" + paren(a) + " " + op + " (" + u + ")" + paren(b) + ")";
  }

  std::string raw(const Expr& e) {
    switch (e.kind) {
      case ExprKind::IntLiteral: return std::to_string(e.int_value);
      case ExprKind::FloatLiteral: {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.9gf", double(float(e.float_value)));
        std::string s = buf;
        if (s.find_first_of(".e") == std::string::npos && s.find("inf") == std::string::npos) s.insert(s.size() - 1, ".0");
        return s;
      }
      case ExprKind::Name:
        if (e.ref == NameRef::Index) return idx_[size_t(e.ref_id)];
        if (e.ref == NameRef::SizeParam) {
          const SymExpr& v = layout_.sizes[size_t(e.ref_id)];
          return v.constant() ? std::to_string(*v.constant()) : "(int32_t)" + sx(v);  // an int, as a literal
        }
        return read_ref(e.ref_id, e.name, [](size_t) { return std::string("0"); });
      case ExprKind::Access: {
        if (e.ref == NameRef::Builtin) {
          const Builtin& b = builtins()[size_t(e.ref_id)];
          std::string args;
          // In the result's precision: double for float64, float otherwise (float16 rounds after).
          bool libm = builtin_in_libm(b.name), dbl = e.type == ScalarType::Float64;
          bool in_float = libm ? !dbl : written_in_float(e);
          ScalarType in = in_float ? ScalarType::Float32 : ScalarType::Float64;
          for (size_t i = 0; i < e.args.size(); ++i) args += (i ? ", " : "") + expr(*e.args[i], in);
          std::string call = libm       ? std::string(b.name) + (dbl ? "" : "f") + "(" + args + ")"
                             : in_float ? c_float_builtin_call(b.name, args)
                                        : "tcs_builtin_" + std::string(b.name) + "(" + args + ")";
          return convert(call, in, e.type);
        }
        return read_ref(e.ref_id, e.name, [&](size_t d) {
          ++subscript_depth_;
          std::string sub = raw(*e.args[d]);
          --subscript_depth_;
          return "(int64_t)" + paren(sub);
        });
      }
      case ExprKind::Unary:
        if (e.op == TokenKind::Bang) return "!" + paren(raw(*e.args[0]));
        if (scalar_type_is_integer(e.type)) return wrapped("0", "-", expr(*e.args[0], e.type), e.type);
        return "-" + paren(expr(*e.args[0], e.type));
      case ExprKind::Binary: {
        const Expr& l = *e.args[0];
        const Expr& r = *e.args[1];
        const char* op = "?";
        switch (e.op) {
          case TokenKind::Plus: op = "+"; break;
          case TokenKind::Minus: op = "-"; break;
          case TokenKind::Star: op = "*"; break;
          case TokenKind::Slash: op = "/"; break;
          case TokenKind::Percent: op = "%"; break;
          case TokenKind::Less: op = "<"; break;
          case TokenKind::Greater: op = ">"; break;
          case TokenKind::LessEq: op = "<="; break;
          case TokenKind::GreaterEq: op = ">="; break;
          case TokenKind::EqEq: op = "=="; break;
          case TokenKind::NotEq: op = "!="; break;
          case TokenKind::AndAnd: op = "&&"; break;
          case TokenKind::OrOr: op = "||"; break;
          default: break;
        }
        ScalarType t = e.type;
        if (t == ScalarType::Bool && e.op != TokenKind::AndAnd && e.op != TokenKind::OrOr)
          t = l.type == ScalarType::Bool ? ScalarType::Bool : scalar_type_promote(l.type, r.type);
        if (e.op == TokenKind::AndAnd || e.op == TokenKind::OrOr) return "(" + raw(l) + " " + op + " " + raw(r) + ")";
        if (scalar_type_is_integer(t)) {
          bool is_signed = scalar_type_is_signed(t);
          if (e.op == TokenKind::Slash || e.op == TokenKind::Percent) {
            std::string h = std::string(e.op == TokenKind::Slash ? "tcs_div_" : "tcs_rem_") + (is_signed ? "s" : "u");
            helpers_.insert(h);
            return "(" + std::string(c_type_name(t)) + ")" + h + "(" + expr(l, t) + ", " + expr(r, t) + ")";
          }
          if (e.op == TokenKind::Plus || e.op == TokenKind::Minus || e.op == TokenKind::Star)
            return wrapped(expr(l, t), op, expr(r, t), t);
        }
        return "(" + expr(l, t) + " " + op + " " + expr(r, t) + ")";
      }
      case ExprKind::Ternary:
        return "(" + raw(*e.args[0]) + " ? " + expr(*e.args[1], e.type) + " : " + expr(*e.args[2], e.type) + ")";
      case ExprKind::Cast: return convert(raw(*e.args[0]), e.args[0]->type, e.cast_type);
      case ExprKind::MinMax: {
        std::string a = expr(*e.args[0], e.type), b = expr(*e.args[1], e.type);
        return "tcs_" + std::string(e.op == TokenKind::KwMin ? "min" : "max") + "(" + a + ", " + b + ")";
      }
    }
    return "?";
  }

  const SemaDef& def_;
  const DefShapes& shapes_;
  const LoopNest& nest_;
  GeneratedText out_;
  std::map<const LoopNode*, int>* node_lines_;
  std::vector<int> pack_of_;  // per tensor: the pack site its reads use, or -1
  KernelLayout layout_;
  std::vector<int64_t> param_values_;     // fixed sizes: LoopNest::params' values
  std::vector<std::string> param_names_;  // symbolic sizes: their C names
  std::vector<std::string> idx_;
  std::set<std::string> helpers_;  // the kHelpers this text calls
  int subscript_depth_ = 0;
  const FoldedInitialisations* folds_;
  int total_ = -1;  // inside a total's parts: the output each part keeps a copy of
};

}  // namespace

GeneratedText generate_c(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest,
                         std::map<const LoopNode*, int>* node_lines, bool symbolic_sizes,
                         const FoldedInitialisations* folds) {
  return CWriter(def, shapes, nest, node_lines, symbolic_sizes, folds).run();
}

}  // namespace tcs
