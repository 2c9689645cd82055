#include "views/panels/LineDiff.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace tcs {

namespace {

std::vector<std::string_view> split_lines(const std::string& s) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t end = s.find('\n', pos);
    if (end == std::string::npos) end = s.size();
    out.emplace_back(s.data() + pos, end - pos);
    pos = end + 1;
  }
  return out;
}

}  // namespace

std::vector<DiffLine> diff_lines(const std::string& a_text, const std::string& b_text, size_t max_cells) {
  std::vector<std::string_view> a = split_lines(a_text), b = split_lines(b_text);
  std::vector<DiffLine> out;
  // Common head and tail first: the usual edit changes a few lines in the middle.
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head && a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) ++tail;
  for (size_t i = 0; i < head; ++i) out.push_back({DiffLine::Same, std::string(a[i])});
  size_t n = a.size() - head - tail, m = b.size() - head - tail;
  auto A = [&](size_t i) { return a[head + i]; };
  auto B = [&](size_t j) { return b[head + j]; };
  if (n * m > max_cells) {
    for (size_t i = 0; i < n; ++i) out.push_back({DiffLine::Removed, std::string(A(i))});
    for (size_t j = 0; j < m; ++j) out.push_back({DiffLine::Added, std::string(B(j))});
  } else {
    // lcs[i][j]: length of the longest common subsequence of A[i..] and B[j..].
    std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        at(i, j) = A(i) == B(j) ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && A(i) == B(j)) {
        out.push_back({DiffLine::Same, std::string(A(i))});
        ++i, ++j;
      } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
        out.push_back({DiffLine::Removed, std::string(A(i++))});
      } else {
        out.push_back({DiffLine::Added, std::string(B(j++))});
      }
    }
  }
  for (size_t i = a.size() - tail; i < a.size(); ++i) out.push_back({DiffLine::Same, std::string(a[i])});
  return out;
}

std::vector<DiffRow> diff_rows(const std::vector<DiffLine>& lines) {
  std::vector<DiffRow> rows;
  for (size_t i = 0; i < lines.size();) {
    if (lines[i].kind == DiffLine::Same) {
      rows.push_back({&lines[i], &lines[i]});
      ++i;
      continue;
    }
    size_t removed_end = i;
    while (removed_end < lines.size() && lines[removed_end].kind == DiffLine::Removed) ++removed_end;
    size_t added_end = removed_end;
    while (added_end < lines.size() && lines[added_end].kind == DiffLine::Added) ++added_end;
    size_t removed = removed_end - i, added = added_end - removed_end;
    for (size_t r = 0; r < std::max(removed, added); ++r)
      rows.push_back({r < removed ? &lines[i + r] : nullptr, r < added ? &lines[removed_end + r] : nullptr});
    i = added_end;
  }
  return rows;
}

}  // namespace tcs
