#include "cli/CliArgs.h"

#include <iostream>

namespace tcs::cli {

std::optional<std::string> ParsedArgs::get(const std::string& n) const {
  auto it = options.find(n);
  if (it == options.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> ParsedArgs::all(const std::string& n) const {
  auto it = options.find(n);
  return it == options.end() ? std::vector<std::string>{} : it->second;
}

std::optional<std::pair<std::string, std::string>> split_assignment(const std::string& s) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0) return std::nullopt;
  return std::pair{s.substr(0, eq), s.substr(eq + 1)};
}

std::variant<ParsedArgs, std::string> parse_args(const std::vector<std::string>& args,
                                                 const std::vector<OptionSpec>& specs) {
  ParsedArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a.compare(0, 2, "--") != 0 || a == "--") {
      if (a.size() > 1 && a[0] == '-' && a != "-") return "unknown option '" + a + "'";
      out.positional.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    bool has_inline = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_inline = true;
    }
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : specs)
      if (s.name == name) spec = &s;
    if (!spec) return "unknown option '--" + name + "'";
    if (!spec->repeatable && out.options.count(name)) return "option '--" + name + "' given twice";
    if (spec->takes_value && !has_inline && !spec->optional_value) {
      if (i + 1 >= args.size()) return "option '--" + name + "' needs a value";
      value = args[++i];
    } else if (!spec->takes_value && has_inline) {
      return "option '--" + name + "' takes no value";
    }
    out.options[name].push_back(value);
  }
  return out;
}

std::variant<ParsedArgs, int> parse_command(const std::vector<std::string>& args, std::vector<OptionSpec> specs,
                                            const char* command, const char* help) {
  specs.push_back({"help", false});
  auto parsed = parse_args(args, specs);
  if (auto* err = std::get_if<std::string>(&parsed)) {
    std::cerr << "tcstudio-cli " << command << ": " << *err << "\n" << help;
    return kUsageError;
  }
  if (std::get<ParsedArgs>(parsed).has("help")) {
    std::cout << help;
    return kSuccess;
  }
  return std::move(std::get<ParsedArgs>(parsed));
}

}  // namespace tcs::cli
