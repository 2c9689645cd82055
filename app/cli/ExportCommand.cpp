#include <iostream>

#include "cli/CliArgs.h"
#include "cli/Commands.h"
#include "cli/KernelSetup.h"
#include "export/Export.h"

namespace tcs::cli {

static const char* kExportHelp = R"(usage: tcstudio-cli export FILE.tc [--entry NAME] [--size NAME=INT ...]
                          [--options FILE.json | --preset NAME | --best [--db PATH]]
                          --out DIR [--cpu NAME]
                          [--symbolic-sizes]

Writes a kernel as a bundle for your own C or C++ project into DIR: NAME.h (the C
signature), NAME.c (readable C), NAME.o (compiled by LLVM) with its glue NAME_object.c,
a CMakeLists.txt that builds a static library NAME from either, example.c (runs NAME on
.npy files) and a README. Sizes are fixed at export (--size, else the # sizes: header)
unless --symbolic-sizes leaves them as arguments.

  --out DIR          the bundle's folder (created if missing)
  --best             the tuned options from the tuning cache (--db PATH, default
                     ~/.local/share/tcstudio/cache.sqlite), or the default with a note
  --cpu NAME         the CPU NAME.o is compiled for: host (default), or an LLVM CPU name
                     such as x86-64-v3, skylake-avx512, znver4
  --symbolic-sizes   NAME takes the sizes as arguments and runs on any sizes the kernel
                     accepts (it returns 1 on others); the given sizes only choose tiles.
                     Kernels whose ranges are not affine in their sizes need fixed sizes
)";

int command_export(const std::vector<std::string>& argv) {
  auto parsed = parse_command(argv,
                              {{"entry", true},
                               {"size", true, true},
                               {"options", true},
                               {"preset", true},
                               {"best", false},
                               {"db", true},
                               {"out", true},
                               {"cpu", true},
                               {"symbolic-sizes", false}},
                              "export", kExportHelp);
  if (auto* code = std::get_if<int>(&parsed)) return *code;
  const ParsedArgs& args = std::get<ParsedArgs>(parsed);
  auto out = args.get("out");
  if (!out || out->empty()) {
    std::cerr << "tcstudio-cli export: --out DIR is required (see --help)\n";
    return kUsageError;
  }
  auto setup = kernel_setup(args, "export");
  if (auto* code = std::get_if<int>(&setup)) return *code;
  CliKernel& k = std::get<CliKernel>(setup);
  auto options = mapping_options_from_args(args, k);
  if (auto* code = std::get_if<int>(&options)) return *code;
  ExportSettings settings;
  settings.cpu = args.get("cpu").value_or("host");
  settings.source_name = args.positional[0];
  settings.symbolic_sizes = args.has("symbolic-sizes");
  auto bundle = export_bundle(k, std::get<MappingOptions>(options), settings);
  if (!bundle) {
    std::cerr << "error: " << bundle.error() << "\n";
    return kUserError;
  }
  if (Status s = bundle_write(*bundle, *out); !s) {
    std::cerr << "error: " << s.error() << "\n";
    return kUserError;
  }
  std::cout << "exported " << bundle->kernel << " to " << *out << ":";
  for (const BundleFile& f : bundle->files) std::cout << " " << f.name;
  std::cout << "\n";
  return kSuccess;
}

}  // namespace tcs::cli
