#pragma once
// A source file and byte ranges into it. Every diagnostic and every AST node carries a
// SourceRange; line and column are computed only when a message is printed.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tcs {

// Half-open byte range [begin, end) into a SourceFile's text.
struct SourceRange {
  uint32_t begin = 0;
  uint32_t end = 0;
  friend bool operator==(const SourceRange&, const SourceRange&) = default;
};

inline SourceRange range_join(SourceRange a, SourceRange b) {
  return {a.begin < b.begin ? a.begin : b.begin, a.end > b.end ? a.end : b.end};
}

// 1-based line and column; the column counts bytes, as QScintilla and clang do.
struct LineColumn {
  int line = 1;
  int column = 1;
};

class SourceFile {
 public:
  SourceFile(std::string name, std::string text);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  std::string_view slice(SourceRange r) const;

  LineColumn line_column(uint32_t offset) const;
  int line_count() const { return int(line_starts_.size()); }
  // The text of a 1-based line without its newline.
  std::string_view line_text(int line) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<uint32_t> line_starts_;
};

}  // namespace tcs
