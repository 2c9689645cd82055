#include "views/explorers/FusionChoices.h"

#include <chrono>

#include "Compiler.h"
#include "lang/Ast.h"
#include "views/service/CompileService.h"

namespace tcs {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

FusionVariant fusion_variant(const CompileOutcome& o, FusionStrategy strategy, bool time, const std::atomic<bool>* cancel) {
  FusionVariant v;
  v.strategy = strategy;
  const SemaDef* def = o.def();
  if (!def || !o.shapes || !o.result) {
    v.error = "compile the kernel first";
    return v;
  }
  auto options = mapping_options_from_json(o.options_json);
  if (!options) {
    v.error = options.error();
    return v;
  }
  v.options = *options;
  v.options.outer_fusion = strategy;
  KernelSetup setup{o.checked, def, o.header_sizes, *o.shapes};
  CompileHooks hooks;
  hooks.cancel = cancel;
  auto t0 = std::chrono::steady_clock::now();
  auto compiled = compile_kernel(setup, v.options, CodegenChoice{o.result->target, {}, time}, hooks);
  // Another fusion shapes other bands: a point-loop order or a pack depth written for the
  // bands in use may fit none of them. Those are dropped (and the card says so), so what
  // Adopt applies is options the compiler accepts as they are.
  if (!compiled && compiled.failure().kind == ErrorKind::Options && !v.options.cpu.point_loop_order.empty()) {
    v.options.cpu.point_loop_order.clear();
    v.dropped.push_back("cpu.pointLoopOrder");
    compiled = compile_kernel(setup, v.options, CodegenChoice{o.result->target, {}, time}, hooks);
  }
  if (!compiled && compiled.failure().kind == ErrorKind::Options && !v.options.cpu.pack.empty()) {
    v.options.cpu.pack.clear();
    v.dropped.push_back("cpu.pack");
    compiled = compile_kernel(setup, v.options, CodegenChoice{o.result->target, {}, time}, hooks);
  }
  v.compile_ms = ms_since(t0);
  if (!compiled) {
    v.error = compiled.error();
    return v;
  }
  const LoweringResult& lowered = compiled->lowering;
  v.graph = statement_graph(*def, *o.shapes, lowered.nest);
  if (!lowered.passes.empty()) v.schedule = lowered.passes.back().isl_schedule;
  const std::string& text = o.checked->file.text();
  for (const StatementGraph::Node& n : v.graph->nodes) {
    std::string s;
    if (n.source_stmt >= 0 && size_t(n.source_stmt) < def->stmts.size()) {
      const SourceRange& r = def->stmts[size_t(n.source_stmt)].ast->range;
      if (r.end <= text.size() && r.begin < r.end) s = text.substr(r.begin, r.end - r.begin);
    }
    v.statement_text.push_back(n.is_init ? "init of " + s : s);
  }
  if (time && compiled->kernel) v.time = quick_time(*compiled->kernel, cancel);
  return v;
}

std::string fusion_key(const CompileOutcome& o) {
  if (!o.def() || !o.shapes) return {};
  auto options = mapping_options_from_json(o.options_json);
  if (!options) return {};
  options->outer_fusion = FusionStrategy::Max;
  // The saved options line changes with every adopted strategy: it is not the kernel.
  std::string key = source_without_saved_options(o) + '\n' + o.def()->name + '\n';
  for (const auto& [name, value] : o.shapes->sizes) key += name + "=" + std::to_string(value) + " ";
  return key + '\n' + mapping_options_to_json(*options);
}

}  // namespace tcs
