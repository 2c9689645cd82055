#include "lang/Source.h"

#include <algorithm>

namespace tcs {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

std::string_view SourceFile::slice(SourceRange r) const {
  uint32_t b = std::min<uint32_t>(r.begin, uint32_t(text_.size()));
  uint32_t e = std::min<uint32_t>(std::max(r.end, b), uint32_t(text_.size()));
  return std::string_view(text_).substr(b, e - b);
}

LineColumn SourceFile::line_column(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, uint32_t(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  int line = int(it - line_starts_.begin());
  return {line, int(offset - line_starts_[line - 1]) + 1};
}

std::string_view SourceFile::line_text(int line) const {
  if (line < 1 || line > line_count()) return {};
  uint32_t b = line_starts_[line - 1];
  uint32_t e = line < line_count() ? line_starts_[line] - 1 : uint32_t(text_.size());
  std::string_view s = std::string_view(text_).substr(b, e - b);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

}  // namespace tcs
