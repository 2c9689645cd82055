#include "Compiler.h"

#include <algorithm>
#include <map>

#include "targets/Target.h"

namespace tcs {

std::vector<std::string> compile_pass_names(std::string_view target) {
  const Target* t = find_target(target);
  return lowering_pass_names(t ? t->mapping_passes : std::vector<MappingPass>{});
}

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
    // A guarded statement counts its value over the whole box, as a padded convolution's
    // flops are counted by convention.
    total += instances * double(arithmetic_ops(st.value()) + (st.reduces() ? 1 : 0));
  }
  return total;
}

const GeneratedText& CompileResult::text(std::string_view kind) const {
  static const GeneratedText empty;
  auto it = texts.find(std::string(kind));
  return it == texts.end() ? empty : it->second;
}

Expected<CompileResult> compile_kernel(const KernelSetup& setup, const MappingOptions& options,
                                       const CodegenChoice& choice, const CompileHooks& hooks) {
  const Target* target = find_target(choice.target);
  if (!target)
    return Error{ErrorKind::Options, "unknown target '" + choice.target + "' (known targets: " + target_names() + ")"};
  for (const std::string& kind : choice.text_kinds)
    if (std::find(target->text_kinds.begin(), target->text_kinds.end(), kind) == target->text_kinds.end())
      return Error{ErrorKind::Options, "target '" + target->name + "' cannot emit '" + kind + "'"};
  CompileResult r;
  r.setup = setup;
  r.options = options;
  r.target = target->name;
  auto lowered =
      lower_to_loop_nest(*setup.def, setup.shapes, options, target->mapping_passes, hooks.cancel, choice.symbolic_sizes);
  if (!lowered) return lowered.failure();
  r.lowering = std::move(*lowered);
  for (const PassSnapshot& p : r.lowering.passes) r.timings.push_back({p.pass, p.milliseconds});

  CodegenInput in;
  in.def = setup.def;
  in.shapes = &setup.shapes;
  in.nest = &r.lowering.nest;
  in.text_kinds = choice.text_kinds;
  in.build_kernel = choice.build_kernel;
  in.object_cpu = choice.object_cpu;
  in.object_prefix = choice.object_prefix;
  in.symbolic_sizes = choice.symbolic_sizes;
  in.cancel = hooks.cancel;
  if (hooks.early)
    in.early = [&](const std::map<std::string, GeneratedText>& texts, const std::vector<PhaseTime>& timings) {
      // The result as it stands, without copying it: the final texts and timings below
      // replace these.
      size_t passes = r.timings.size();
      r.texts = texts;
      r.timings.insert(r.timings.end(), timings.begin(), timings.end());
      hooks.early(r);
      r.timings.resize(passes);
    };
  auto generated = target->generate(in);
  if (!generated) return generated.failure();
  r.texts = std::move(generated->texts);
  r.kernel = std::move(generated->kernel);
  r.object = std::move(generated->object);
  for (PhaseTime& t : generated->timings) r.timings.push_back(std::move(t));
  return r;
}

Expected<CompileResult> compile(const CompileRequest& req, const CompileHooks& hooks) {
  std::shared_ptr<const CheckedFile> checked = check_source(req.file_name, req.source);
  auto setup = kernel_setup(std::move(checked), KernelSpec{req.entry, req.sizes, {}});
  if (!setup) return setup.failure();
  auto options = kernel_options(*setup->def, req.options, &setup->shapes);
  if (!options) return options.failure();
  CodegenChoice choice{req.target, req.text_kinds, req.build_kernel};
  choice.symbolic_sizes = req.symbolic_sizes;
  return compile_kernel(*setup, *options, choice, hooks);
}

}  // namespace tcs
