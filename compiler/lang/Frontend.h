#pragma once
// The front end as one call: text in, checked program and diagnostics out. This is what
// the CLI's `check`, the IDE's live diagnostics and every later stage start from.
#include <memory>
#include <string>
#include <vector>

#include "lang/Ast.h"
#include "lang/Diagnostic.h"
#include "lang/Sema.h"
#include "lang/Source.h"
#include "support/Expected.h"

namespace tcs {

struct CheckedFile {
  SourceFile file;
  ast::Program program;
  std::vector<SemaDef> defs;  // point into `program`, so a CheckedFile never moves
  std::vector<Diagnostic> diagnostics;

  explicit CheckedFile(SourceFile f) : file(std::move(f)) {}
  CheckedFile(const CheckedFile&) = delete;
  CheckedFile& operator=(const CheckedFile&) = delete;

  bool has_errors() const;
  const SemaDef* find_def(std::string_view name) const;
};

std::unique_ptr<CheckedFile> check_source(std::string name, std::string text);
Expected<std::unique_ptr<CheckedFile>> check_file(const std::string& path);

// The def to run: the named one, or the only one when `entry` is empty.
Expected<const SemaDef*> select_entry(const CheckedFile& checked, std::string_view entry);

// Reads a "# sizes: M=128 K=256" header comment; empty if there is none. Each such line
// gives the sizes of the defs after it, up to the next one: with `def_begin` (the byte
// offset where a def starts) the last line before it, or the first line of the file when
// none comes before; without it, the first line of the file.
SizeMap sizes_from_header(std::string_view text, size_t def_begin = 0);

// A def's saved mapping options: a "# options:" line among the comments directly above it
// (the blank and '#' lines up to its own line), written by the IDE when options change and
// read by every face when none are given otherwise. `value` is what follows "options:":
// a preset name or the options as one line of JSON. Without one, `found` is false and
// begin = end = the start of the def's line, where one would be inserted.
struct OptionsHeader {
  bool found = false;
  size_t begin = 0, end = 0;  // the line, without its newline
  int line = 0;               // 1-based
  std::string value;
};
OptionsHeader options_header(std::string_view text, size_t def_begin);
// The header line for `value` (a preset name or one line of JSON), without a newline.
std::string options_header_line(std::string_view value);

}  // namespace tcs
