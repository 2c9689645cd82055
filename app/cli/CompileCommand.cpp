#include <iostream>

#include "cli/Commands.h"
#include "cli/KernelSetup.h"
#include "Compiler.h"

namespace tcs::cli {

static const char* kCompileHelp = R"(usage: tcstudio-cli compile FILE.tc [--entry NAME] [--size NAME=INT ...]
                           [--options FILE.json | --preset NAME] [--target cpu]
                           [--emit model|schedule|ast|c|llvm|asm] [--dump-after PASS]
                           [--time-passes]

Compiles a def for the given sizes (from --size, then the file's "# sizes:" header) and
prints one intermediate form.

  --options FILE.json  mapping options (see docs/OPTIONS.md); --preset NAME picks a preset:
                       naive, default, contraction, reduction, elementwise
  --emit WHAT          model: domains, accesses and dependences; schedule: the final
                       schedule tree; ast: the loop nest; c: readable C; llvm: optimised
                       LLVM IR; asm: x86 assembly (default: c)
  --dump-after PASS    print the schedule tree after PASS (model, dependences, schedule,
                       tile, cpu-marks, ast) instead
  --time-passes        print each phase's time on stderr
)";

int command_compile(const std::vector<std::string>& argv) {
  auto parsed = parse_command(argv,
                              {{"entry", true},
                               {"size", true, true},
                               {"input", true, true},
                               {"options", true},
                               {"preset", true},
                               {"target", true},
                               {"emit", true},
                               {"dump-after", true},
                               {"time-passes", false}},
                              "compile", kCompileHelp);
  if (auto* code = std::get_if<int>(&parsed)) return *code;
  const ParsedArgs& args = std::get<ParsedArgs>(parsed);
  std::string target = args.get("target").value_or("cpu");
  if (target != "cpu") {
    std::cerr << "tcstudio-cli compile: unknown target '" << target << "' (known: cpu)\n";
    return kUsageError;
  }
  std::string emit = args.get("emit").value_or("c");
  const std::vector<std::string> forms = {"model", "schedule", "ast", "c", "llvm", "asm"};
  if (std::find(forms.begin(), forms.end(), emit) == forms.end()) {
    std::cerr << "tcstudio-cli compile: --emit takes model, schedule, ast, c, llvm or asm, not '" << emit << "'\n";
    return kUsageError;
  }
  auto dump = args.get("dump-after");
  if (dump) {
    auto names = compile_pass_names();
    if (std::find(names.begin(), names.end(), *dump) == names.end()) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      std::cerr << "tcstudio-cli compile: unknown pass '" << *dump << "' (passes: " << known << ")\n";
      return kUsageError;
    }
  }

  auto setup = kernel_setup(args, "compile");
  if (auto* code = std::get_if<int>(&setup)) return *code;
  KernelSetup& k = std::get<KernelSetup>(setup);
  auto options = mapping_options_from_args(args, *k.def);
  if (auto* code = std::get_if<int>(&options)) return *code;

  CompileRequest req;
  req.def = k.def;
  req.shapes = &k.shapes;
  req.options = std::get<MappingOptions>(options);
  req.emit_c = emit == "c";
  req.emit_llvm = emit == "llvm";
  req.emit_asm = emit == "asm";
  auto result = compile(req);
  if (!result) {
    std::cerr << "error: " << result.error() << "\n";
    return kUserError;
  }
  if (args.has("time-passes"))
    for (const PhaseTime& t : result->timings) std::cerr << "  " << t.phase << ": " << t.milliseconds << " ms\n";
  if (dump) {
    for (const PassSnapshot& p : result->lowering.passes)
      if (p.pass == *dump) std::cout << schedule_tree_to_string(p.tree);
    return kSuccess;
  }
  if (emit == "model") std::cout << poly_model_to_string(result->lowering.model);
  else if (emit == "schedule") std::cout << schedule_tree_to_string(result->lowering.passes.back().tree);
  else if (emit == "ast") std::cout << loop_nest_to_string(result->lowering.nest);
  else if (emit == "c") std::cout << result->c.text;
  else if (emit == "llvm") std::cout << result->llvm_ir.text;
  else std::cout << result->assembly.text;
  return kSuccess;
}

}  // namespace tcs::cli
