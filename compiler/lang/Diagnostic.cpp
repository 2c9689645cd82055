#include "lang/Diagnostic.h"

#include <algorithm>

#include "support/Json.h"

namespace tcs {

Diagnostic& Diagnostics::error(SourceRange r, std::string message) {
  ++errors_;
  list_.push_back({Severity::Error, std::move(message), r, {}});
  return list_.back();
}

Diagnostic& Diagnostics::warning(SourceRange r, std::string message) {
  list_.push_back({Severity::Warning, std::move(message), r, {}});
  return list_.back();
}

int Diagnostics::count(Severity s) const {
  return int(std::count_if(list_.begin(), list_.end(),
                           [s](const Diagnostic& d) { return d.severity == s; }));
}

void Diagnostics::sort() {
  std::stable_sort(list_.begin(), list_.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.range.begin != b.range.begin) return a.range.begin < b.range.begin;
    return a.severity < b.severity;
  });
}

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "?";
}

namespace {

// One "file:line:col: kind: message" block with the source line and its underline. A range
// spanning lines is underlined to the end of its first line.
void format_one(std::string& out, const SourceFile& file, Severity s, const std::string& message,
                SourceRange r) {
  LineColumn lc = file.line_column(r.begin);
  out += file.name() + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": ";
  out += severity_name(s);
  out += ": " + message + "\n";
  std::string_view line = file.line_text(lc.line);
  out += "  ";
  out += line;
  out += "\n  ";
  // Columns count bytes; the caret line counts characters, so skip UTF-8 continuation
  // bytes when padding and underlining.
  auto is_continuation = [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) == 0x80; };
  size_t start = std::min(size_t(lc.column - 1), line.size());
  for (size_t i = 0; i < start; ++i)
    if (!is_continuation(line[i])) out += line[i] == '\t' ? '\t' : ' ';
  size_t end = std::min(start + (r.end > r.begin ? r.end - r.begin : 1), line.size());
  size_t width = 0;
  for (size_t i = start; i < end; ++i) width += !is_continuation(line[i]);
  out += '^';
  for (size_t i = 1; i < width; ++i) out += '~';
  out += '\n';
}

}  // namespace

std::string diagnostic_format(const SourceFile& file, const Diagnostic& d) {
  std::string out;
  format_one(out, file, d.severity, d.message, d.range);
  for (const DiagnosticNote& n : d.notes) format_one(out, file, Severity::Note, n.message, n.range);
  return out;
}

std::string diagnostics_format(const SourceFile& file, const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const Diagnostic& d : ds) out += diagnostic_format(file, d);
  return out;
}

std::string diagnostics_to_json(const SourceFile& file, const std::vector<Diagnostic>& ds) {
  JsonWriter w;
  w.begin_object();
  w.key("diagnostics");
  w.begin_array();
  for (const Diagnostic& d : ds) {
    LineColumn b = file.line_column(d.range.begin);
    LineColumn e = file.line_column(d.range.end);
    w.begin_object();
    w.field("severity", severity_name(d.severity));
    w.field("message", d.message);
    w.field("line", b.line);
    w.field("column", b.column);
    w.field("end_line", e.line);
    w.field("end_column", e.column);
    if (!d.notes.empty()) {
      w.key("notes");
      w.begin_array();
      for (const DiagnosticNote& n : d.notes) {
        LineColumn nb = file.line_column(n.range.begin);
        w.begin_object();
        w.field("message", n.message);
        w.field("line", nb.line);
        w.field("column", nb.column);
        w.end_object();
      }
      w.end_array();
    }
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.str();
}

}  // namespace tcs
