#pragma once
// A line diff (longest common subsequence) of two generated texts, for the diff view that
// compares the code of two option sets. Plain C++.
#include <string>
#include <vector>

namespace tcs {

struct DiffLine {
  enum Kind { Same, Removed, Added } kind = Same;
  std::string text;  // without the newline
};

// Lines of `a` not in `b` come out Removed, lines of `b` not in `a` Added. Texts whose
// line-count product is beyond `max_cells` are compared as wholly different.
std::vector<DiffLine> diff_lines(const std::string& a, const std::string& b, size_t max_cells = 16'000'000);

// The same lines as two aligned columns: a run of removed lines faces the run of added
// lines after it, row by row; a side with nothing to show in a row holds a null.
struct DiffRow {
  const DiffLine* a = nullptr;  // Same or Removed
  const DiffLine* b = nullptr;  // Same or Added
};
std::vector<DiffRow> diff_rows(const std::vector<DiffLine>& lines);

}  // namespace tcs
