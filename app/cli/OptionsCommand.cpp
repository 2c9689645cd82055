#include <iostream>

#include "cli/CliArgs.h"
#include "cli/Commands.h"
#include "options/OptionsSchema.h"

namespace tcs::cli {

static const char* kOptionsHelp = R"(usage: tcstudio-cli options [--markdown | --json]

Lists the mapping options: every field with what it allows, its default and its meaning,
from the one options table the compiler, the IDE and the tuner read.

  --markdown   the table as docs/OPTIONS.md holds it
  --json       the default options as JSON, a starting point for --options FILE.json
)";

int command_options(const std::vector<std::string>& argv) {
  auto parsed = parse_command(argv, {{"markdown", false}, {"json", false}}, "options", kOptionsHelp);
  if (auto* code = std::get_if<int>(&parsed)) return *code;
  const ParsedArgs& args = std::get<ParsedArgs>(parsed);
  if (args.has("markdown")) {
    std::cout << options_markdown();
  } else if (args.has("json")) {
    std::cout << mapping_options_to_json(MappingOptions{});
  } else {
    MappingOptions defaults;
    for (const OptionField& f : option_fields())
      std::cout << f.name << "  (" << option_allowed(f) << "; default " << option_get(defaults, f) << ")\n    "
                << f.meaning << "\n";
  }
  return kSuccess;
}

}  // namespace tcs::cli
