#include "lang/Frontend.h"

#include <algorithm>
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

OptionsHeader options_header(std::string_view text, size_t def_begin) {
  def_begin = std::min(def_begin, text.size());
  size_t line_start = text.rfind('\n', def_begin == 0 ? 0 : def_begin - 1);
  line_start = (line_start == std::string_view::npos || def_begin == 0) ? 0 : line_start + 1;
  OptionsHeader h;
  h.begin = h.end = line_start;
  // Walk up the comment block above the def's line, one line at a time.
  for (size_t below = line_start; below > 0;) {
    size_t newline = below - 1;  // ends the line looked at
    size_t previous = newline == 0 ? std::string_view::npos : text.rfind('\n', newline - 1);
    size_t begin = previous == std::string_view::npos ? 0 : previous + 1;
    std::string_view line = text.substr(begin, newline - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line[first] != '#') break;  // code: the block ends
    if (first != std::string_view::npos) {
      std::string_view rest = line.substr(first + 1);
      rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
      if (rest.rfind("options:", 0) == 0) {
        std::string_view v = rest.substr(8);
        size_t a = v.find_first_not_of(" \t"), z = v.find_last_not_of(" \t");
        h.found = true;
        h.begin = begin;
        h.end = begin + line.size();
        h.value = a == std::string_view::npos ? std::string() : std::string(v.substr(a, z - a + 1));
        break;
      }
    }
    below = begin;
  }
  size_t at = h.found ? h.begin : line_start;
  h.line = 1 + int(std::count(text.begin(), text.begin() + std::ptrdiff_t(at), '\n'));
  return h;
}

std::string options_header_line(std::string_view value) { return "# options: " + std::string(value); }

}  // namespace tcs
