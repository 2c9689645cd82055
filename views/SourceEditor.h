#pragma once
// The comprehension editor: QScintilla with line numbers, a monospace font and
// diagnostics drawn as squiggles (red for errors, orange for warnings).
#include <Qsci/qsciscintilla.h>

#include <vector>

#include "lang/Diagnostic.h"

namespace tcs {

class SourceEditor : public QsciScintilla {
  Q_OBJECT
 public:
  explicit SourceEditor(QWidget* parent = nullptr);

  // Ranges are byte offsets into the UTF-8 text, which is what Scintilla counts too.
  void show_diagnostics(const std::vector<Diagnostic>& diagnostics);
  void select_bytes(uint32_t begin, uint32_t end);

  static constexpr int kErrorIndicator = 8;
  static constexpr int kWarningIndicator = 9;
};

}  // namespace tcs
