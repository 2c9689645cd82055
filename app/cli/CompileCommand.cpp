#include <iostream>

#include "cli/Commands.h"
#include "cli/KernelSetup.h"
#include "Compiler.h"
#include "targets/Target.h"

namespace tcs::cli {

static const char* kCompileHelp = R"(usage: tcstudio-cli compile FILE.tc [--entry NAME] [--size NAME=INT ...]
                           [--options FILE.json | --preset NAME | --best [--db PATH]]
                           [--target cpu]
                           [--emit options|model|schedule|ast|c|llvm|asm] [--dump-after PASS]
                           [--symbolic-sizes] [--time-passes]

Compiles a def for the given sizes (from --size, then the file's "# sizes:" header) and
prints one intermediate form.

  --options FILE.json  mapping options (see docs/OPTIONS.md); --preset NAME picks a preset:
                       naive, default, contraction, reduction, elementwise
  --best               the tuned options of this kernel and sizes on this machine from the
                       tuning cache (--db PATH, default ~/.local/share/tcstudio/cache.sqlite);
                       says on stderr which record it used, or that it used the default
  --emit WHAT          options: the mapping options as JSON (what a preset chose for
                       these sizes; a starting point for --options); model: domains,
                       accesses and dependences; schedule: the final schedule tree; ast:
                       the loop nest; c: readable C; llvm: optimised LLVM IR; asm: x86
                       assembly (default: c)
  --dump-after PASS    print the schedule tree after PASS (model, dependences, schedule,
                       tile, cpu-marks, ast) instead
  --symbolic-sizes     keep the sizes as parameters of the generated code (it then holds
                       for every valid size; the given sizes only guide tiling choices),
                       as `export --symbolic-sizes` does
  --time-passes        print each phase's time on stderr
)";

int command_compile(const std::vector<std::string>& argv) {
  auto parsed = parse_command(argv,
                              {{"entry", true},
                               {"size", true, true},
                               {"input", true, true},
                               {"options", true},
                               {"preset", true},
                               {"best", false},
                               {"db", true},
                               {"target", true},
                               {"emit", true},
                               {"dump-after", true},
                               {"symbolic-sizes", false},
                               {"time-passes", false}},
                              "compile", kCompileHelp);
  if (auto* code = std::get_if<int>(&parsed)) return *code;
  const ParsedArgs& args = std::get<ParsedArgs>(parsed);
  std::string target_name = args.get("target").value_or("cpu");
  const Target* target = find_target(target_name);
  if (!target) {
    std::cerr << "tcstudio-cli compile: unknown target '" << target_name << "' (known: " << target_names() << ")\n";
    return kUsageError;
  }
  std::string emit = args.get("emit").value_or("c");
  std::vector<std::string> forms = {"options", "model", "schedule", "ast"};
  forms.insert(forms.end(), target->text_kinds.begin(), target->text_kinds.end());
  if (std::find(forms.begin(), forms.end(), emit) == forms.end()) {
    std::string known;
    for (const auto& f : forms) known += (known.empty() ? "" : ", ") + f;
    std::cerr << "tcstudio-cli compile: --emit takes " << known << " for target " << target->name << ", not '" << emit
              << "'\n";
    return kUsageError;
  }
  bool is_text = std::find(target->text_kinds.begin(), target->text_kinds.end(), emit) != target->text_kinds.end();
  auto dump = args.get("dump-after");
  if (dump) {
    auto names = compile_pass_names(target->name);
    if (std::find(names.begin(), names.end(), *dump) == names.end()) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      std::cerr << "tcstudio-cli compile: unknown pass '" << *dump << "' (passes: " << known << ")\n";
      return kUsageError;
    }
  }

  auto setup = kernel_setup(args, "compile");
  if (auto* code = std::get_if<int>(&setup)) return *code;
  CliKernel& k = std::get<CliKernel>(setup);
  auto options = mapping_options_from_args(args, k);
  if (auto* code = std::get_if<int>(&options)) return *code;

  CodegenChoice choice{target->name, is_text ? std::vector<std::string>{emit} : std::vector<std::string>{}, false};
  choice.symbolic_sizes = args.has("symbolic-sizes");
  auto result = compile_kernel(k, std::get<MappingOptions>(options), choice);
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
  if (emit == "options") std::cout << mapping_options_to_json(std::get<MappingOptions>(options));
  else if (emit == "model") std::cout << poly_model_to_string(result->lowering.model);
  else if (emit == "schedule") std::cout << schedule_tree_to_string(result->lowering.passes.back().tree);
  else if (emit == "ast") std::cout << loop_nest_to_string(result->lowering.nest);
  else std::cout << result->text(emit).text;
  return kSuccess;
}

}  // namespace tcs::cli
