#include "targets/cpu/CpuTarget.h"

#include <algorithm>
#include <chrono>

#include "codegen/CText.h"
#include "codegen/CpuKernel.h"
#include "loopnest/JoinParallelLoops.h"
#include "loopnest/PrivateTemporaries.h"

namespace tcs {

namespace {

bool wants(const CodegenInput& in, std::string_view kind) {
  return std::find(in.text_kinds.begin(), in.text_kinds.end(), kind) != in.text_kinds.end();
}

Expected<CodegenOutput> generate(const CodegenInput& in) {
  CodegenOutput out;
  // The C text is also the backbone of the IR's line map (its lines are the IR's debug
  // locations), so the LLVM phases need it even when it is not shown.
  bool llvm = wants(in, "llvm") || wants(in, "asm") || in.build_kernel || !in.object_cpu.empty();
  std::map<const LoopNode*, int> node_lines;
  auto t0 = std::chrono::steady_clock::now();
  // First which initialisations the register tiles make unnecessary, then the parallel
  // loops that can share one hand-off to the threads (loopnest/JoinParallelLoops.h), then
  // the temporaries each iteration of such a loop keeps to itself
  // (loopnest/PrivateTemporaries.h).
  FoldedInitialisations folds = cpu_folded_initialisations(*in.def, *in.shapes, *in.nest, in.symbolic_sizes);
  LoopNest nest = *in.nest;
  join_parallel_loops(*in.def, *in.shapes, in.symbolic_sizes, nest, folds.skipped);
  keep_private_temporaries(*in.def, *in.shapes, in.symbolic_sizes, nest, folds.skipped);
  GeneratedText c = generate_c(*in.def, *in.shapes, nest, &node_lines, in.symbolic_sizes, &folds);
  out.timings.push_back({"c", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()});
  if (wants(in, "c")) out.texts["c"] = c;
  if (in.early && llvm) in.early(out.texts, out.timings);
  if (!llvm) return out;
  if (in.cancel && in.cancel->load()) return Error{ErrorKind::Cancelled, "compilation cancelled"};
  CpuCodegenRequest cg{in.def,          in.shapes,         &nest,            &c,
                       &node_lines,     wants(in, "llvm"), wants(in, "asm"), in.build_kernel,
                       in.object_cpu,   in.object_prefix,  in.symbolic_sizes, &folds};
  auto built = cpu_codegen(cg);
  if (!built) return built.failure();
  if (wants(in, "llvm")) out.texts["llvm"] = std::move(built->llvm_ir);
  if (wants(in, "asm")) out.texts["asm"] = std::move(built->assembly);
  out.kernel = std::move(built->kernel);
  out.object = std::move(built->object);
  for (PhaseTime& t : built->timings) out.timings.push_back(std::move(t));
  return out;
}

}  // namespace

Target cpu_target() {
  Target t;
  t.name = "cpu";
  t.description = "this machine's CPU: C, LLVM IR and x86 assembly, JIT-compiled with LLVM";
  t.text_kinds = {"c", "llvm", "asm"};
  t.mapping_passes = {{"cpu-marks", &poly::mark_cpu_loops}, {"pack", &poly::pack_tensors}, {"local", &poly::localize_temporaries}};
  t.generate = generate;
  t.identify = cpu_host_identity;
  return t;
}

}  // namespace tcs
