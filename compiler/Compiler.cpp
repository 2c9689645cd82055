#include "Compiler.h"

#include <chrono>
#include <map>

#include "codegen/CText.h"
#include "codegen/CpuKernel.h"

namespace tcs {

std::vector<std::string> compile_pass_names() { return lowering_pass_names(); }

std::string poly_model_to_string(const PolyModelInfo& m) {
  std::string s = "context: " + m.context + "\n";
  for (const ModelStatement& st : m.statements) {
    s += "\n" + st.name + (st.is_init ? "  (initialisation of statement " : "  (statement ") +
         std::to_string(st.source_stmt + 1) + ")\n";
    s += "  domain: " + st.domain + "\n";
    for (const std::string& w : st.writes) s += "  write:  " + w + "\n";
    for (const std::string& r : st.reads) s += "  read:   " + r + "\n";
  }
  s += "\ndependences\n";
  s += "  flow:      " + m.flow + "\n";
  s += "  anti:      " + m.anti + "\n";
  s += "  output:    " + m.output + "\n";
  s += "  reduction: " + m.reduction + "\n";
  s += "\ninitial schedule: " + m.initial_schedule + "\n";
  for (const std::string& n : m.notes) s += "note: " + n + "\n";
  return s;
}

namespace {
int64_t arithmetic_ops(const ast::Expr& e) {
  int64_t n = 0;
  if (e.kind == ast::ExprKind::Binary && e.op != TokenKind::AndAnd && e.op != TokenKind::OrOr) n = 1;
  if (e.kind == ast::ExprKind::Access && e.ref == ast::NameRef::Builtin) n = 1;
  if (e.kind == ast::ExprKind::MinMax || (e.kind == ast::ExprKind::Unary && e.op == TokenKind::Minus)) n = 1;
  if (e.kind == ast::ExprKind::Access && e.ref == ast::NameRef::Tensor) return 0;  // subscripts are addressing
  for (const auto& a : e.args) n += arithmetic_ops(*a);
  return n;
}
}  // namespace

double kernel_flops(const SemaDef& def, const DefShapes& shapes) {
  double total = 0;
  for (size_t s = 0; s < def.stmts.size(); ++s) {
    const SemaStmt& st = def.stmts[s];
    double instances = 1;
    for (const IndexRange& r : shapes.stmts[s]) instances *= double(r.hi - r.lo + 1);
    total += instances * double(arithmetic_ops(*st.ast->rhs) + (st.reduces() ? 1 : 0));
  }
  return total;
}

Expected<CompileResult> compile(const CompileRequest& req) {
  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  CompileResult r;
  auto lowered = lower_to_loop_nest(*req.def, *req.shapes, req.options, req.cancel);
  if (!lowered) return Error{lowered.error()};
  r.lowering = std::move(*lowered);
  for (const PassSnapshot& p : r.lowering.passes) r.timings.push_back({p.pass, p.milliseconds});

  // The C text is also the backbone of the IR's line map, so codegen needs it too.
  bool codegen = req.emit_llvm || req.emit_asm || req.build_kernel;
  std::map<const LoopNode*, int> node_lines;
  if (req.emit_c || codegen) {
    auto t0 = Clock::now();
    r.c = generate_c(*req.def, *req.shapes, r.lowering.nest, &node_lines);
    r.timings.push_back({"c", ms_since(t0)});
    if (req.after_c) req.after_c(r);
  }
  if (codegen) {
    if (req.cancel && req.cancel->load()) return Error{"compilation cancelled"};
    CpuCodegenRequest cg{req.def, req.shapes, &r.lowering.nest, &r.c, &node_lines, req.emit_llvm, req.emit_asm,
                         req.build_kernel};
    auto built = cpu_codegen(cg);
    if (!built) return Error{built.error()};
    r.llvm_ir = std::move(built->llvm_ir);
    r.assembly = std::move(built->assembly);
    r.kernel = std::move(built->kernel);
    for (PhaseTime& t : built->timings) r.timings.push_back(std::move(t));
  }
  if (!req.emit_c) r.c = {};
  return r;
}

}  // namespace tcs
