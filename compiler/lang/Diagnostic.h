#pragma once
// Diagnostics: what the front end says about a program. Plain data, so the CLI prints
// them, the IDE draws them as squiggles and the tests compare them.
#include <string>
#include <vector>

#include "lang/Source.h"

namespace tcs {

enum class Severity { Error, Warning, Note };

struct DiagnosticNote {
  std::string message;
  SourceRange range;
};

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string message;  // names the offending token or variable
  SourceRange range;
  std::vector<DiagnosticNote> notes;
};

class Diagnostics {
 public:
  Diagnostic& error(SourceRange r, std::string message);
  Diagnostic& warning(SourceRange r, std::string message);
  void add(Diagnostic d) { list_.push_back(std::move(d)); }

  bool has_errors() const { return errors_ > 0 || count(Severity::Error) > 0; }
  int count(Severity s) const;
  const std::vector<Diagnostic>& list() const { return list_; }
  std::vector<Diagnostic>& list() { return list_; }
  // Sorted by position, errors before warnings at the same place; stable otherwise.
  void sort();

 private:
  std::vector<Diagnostic> list_;
  int errors_ = 0;
};

std::string_view severity_name(Severity s);

// "file:line:col: error: message", the source line, and a caret underline of the range;
// notes follow in the same form.
std::string diagnostic_format(const SourceFile& file, const Diagnostic& d);
std::string diagnostics_format(const SourceFile& file, const std::vector<Diagnostic>& ds);

// {"diagnostics":[{"severity","message","line","column","end_line","end_column"}]}
std::string diagnostics_to_json(const SourceFile& file, const std::vector<Diagnostic>& ds);

}  // namespace tcs
