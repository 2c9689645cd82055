#include "lang/Frontend.h"

#include <charconv>
#include <optional>
#include <fstream>
#include <sstream>

#include "lang/Lexer.h"
#include "lang/Parser.h"
#include "lang/ReadSource.h"

namespace tcs {

bool CheckedFile::has_errors() const {
  for (const Diagnostic& d : diagnostics)
    if (d.severity == Severity::Error) return true;
  return false;
}

const SemaDef* CheckedFile::find_def(std::string_view name) const {
  for (const SemaDef& d : defs)
    if (d.name == name) return &d;
  return nullptr;
}

std::unique_ptr<CheckedFile> check_source(std::string name, std::string text) {
  auto out = std::make_unique<CheckedFile>(SourceFile(std::move(name), std::move(text)));
  Diagnostics diags;
  std::vector<Token> tokens = lex(out->file, diags);
  out->program = parse(out->file, tokens, diags);
  out->defs = sema_check(out->program, out->file, diags);
  diags.sort();
  out->diagnostics = std::move(diags.list());
  return out;
}

Expected<std::unique_ptr<CheckedFile>> check_file(const std::string& path) {
  auto text = read_source_file(path);
  if (!text) return text.failure();
  return check_source(path, std::move(*text));
}

Expected<const SemaDef*> select_entry(const CheckedFile& checked, std::string_view entry) {
  std::string names;
  for (const SemaDef& d : checked.defs) names += (names.empty() ? "" : ", ") + d.name;
  if (entry.empty()) {
    if (checked.defs.size() == 1) return &checked.defs[0];
    if (checked.defs.empty()) return Error{ErrorKind::Source, checked.file.name() + " defines no kernel"};
    return Error{ErrorKind::Source, checked.file.name() + " defines " + std::to_string(checked.defs.size()) +
                 " kernels (" + names + "); choose one with --entry NAME"};
  }
  if (const SemaDef* d = checked.find_def(entry)) return d;
  return Error{ErrorKind::Source, "no def named '" + std::string(entry) + "' in " + checked.file.name() + "; it defines " + names};
}

SizeMap sizes_from_header(std::string_view text, size_t def_begin) {
  std::optional<SizeMap> first, before;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t line_begin = pos;
    size_t eol = text.find('\n', pos);
    std::string_view line = text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    size_t hash = line.find('#');
    if (hash == std::string_view::npos) continue;
    std::string_view rest = line.substr(hash + 1);
    size_t k = rest.find("sizes:");
    if (k == std::string_view::npos || rest.substr(0, k).find_first_not_of(" \t") != std::string_view::npos) continue;
    SizeMap sizes;
    std::istringstream words{std::string(rest.substr(k + 6))};
    std::string w;
    while (words >> w) {
      size_t eq = w.find('=');
      if (eq == std::string::npos || eq == 0) continue;
      int64_t v = 0;
      auto [p, ec] = std::from_chars(w.data() + eq + 1, w.data() + w.size(), v);
      if (ec == std::errc() && p == w.data() + w.size()) sizes[w.substr(0, eq)] = v;
    }
    if (!first) first = sizes;
    if (line_begin >= def_begin) break;
    before = std::move(sizes);
  }
  return before ? *before : first ? *first : SizeMap{};
}

}  // namespace tcs
