#include <iostream>

#include "cli/CliArgs.h"
#include "cli/Commands.h"
#include "lang/Frontend.h"

namespace tcs::cli {

static const char* kCheckHelp = R"(usage: tcstudio-cli check FILE.tc [--json]

Checks a comprehension file: syntax, names, types and index ranges. Diagnostics go to
stderr as file:line:col: severity: message, with the source line and a caret underline.

  --json   print {"diagnostics":[{"severity","message","line","column","end_line",
           "end_column"}]} on stdout instead
Exit status: 0 when there is no error (warnings allowed), 1 when there is one, 2 on misuse.
)";

int command_check(const std::vector<std::string>& argv) {
  auto parsed = parse_command(argv, {{"json", false}}, "check", kCheckHelp);
  if (auto* code = std::get_if<int>(&parsed)) return *code;
  const ParsedArgs& args = std::get<ParsedArgs>(parsed);
  if (args.positional.size() != 1) {
    std::cerr << "tcstudio-cli check: expected one FILE.tc\n" << kCheckHelp;
    return kUsageError;
  }
  auto checked = check_file(args.positional[0]);
  if (!checked) {
    std::cerr << "error: " << checked.error() << "\n";
    return kUserError;
  }
  const CheckedFile& c = **checked;
  if (args.has("json")) std::cout << diagnostics_to_json(c.file, c.diagnostics) << "\n";
  else std::cerr << diagnostics_format(c.file, c.diagnostics);
  return c.has_errors() ? kUserError : kSuccess;
}

}  // namespace tcs::cli
