#pragma once
// The comprehension editor: QScintilla with the comprehension lexer (semantic colours,
// folding per def), brace matching, completion of builtins, tensors, sizes and indices
// (an icon per kind, the selected item's type or signature in a tip), call tips for
// builtins, hover explanations, diagnostics as squiggles and gutter markers, and a
// highlight for the statements behind a selected line of generated code.
#include <Qsci/qsciscintilla.h>

#include <map>
#include <set>
#include <vector>

#include "lang/Diagnostic.h"
#include "lang/Shapes.h"

namespace tcs {

class SymbolIndex;
struct Completion;
class TcLexer;

class SourceEditor : public QsciScintilla {
  Q_OBJECT
 public:
  explicit SourceEditor(QWidget* parent = nullptr);

  // Ranges are byte offsets into the UTF-8 text, which is what Scintilla counts too.
  void show_diagnostics(const std::vector<Diagnostic>& diagnostics);
  void select_bytes(uint32_t begin, uint32_t end);
  // Marks the given source ranges as linked (the statements behind a selected line).
  void show_linked(const std::vector<SourceRange>& ranges);
  // The sizes of `def` last compiled, so hovers can show numbers next to symbols.
  void set_shapes(int def, const DefShapes* shapes);
  void set_dark(bool dark);

  // The index of the current text (re-built when the text changes).
  const SymbolIndex& symbols();
  // Byte offset of the caret.
  uint32_t caret_offset() const;
  // What completion would offer at the caret for the word being typed there.
  QStringList completion_words();
  void show_completions();
  // The hover text for a byte offset: diagnostics there, else what the word is.
  QString hover_text(uint32_t offset);
  void toggle_comment();

  static constexpr int kErrorIndicator = 8;
  static constexpr int kWarningIndicator = 9;
  static constexpr int kLinkedIndicator = 10;
  static constexpr int kErrorMarker = 2, kWarningMarker = 3;  // in the symbol margin
  // Lines with a gutter marker of this kind (0-based).
  std::vector<int> marked_lines(int marker) const;
  // The type or signature shown for the selected completion ("input A: float32 (M, K)").
  QString completion_tip() const { return completion_tip_; }

 private:
  void char_added(int ch);
  void dwell(int position, int x, int y);
  QString word_before_caret() const;
  void completion_selected(const char* name);
  // What completion offers at the caret; remembers each item's detail for its tip.
  std::vector<Completion> completions_here();

  TcLexer* lexer_;
  std::vector<Diagnostic> diagnostics_;
  int shapes_def_ = -1;
  const DefShapes* shapes_ = nullptr;
  std::map<QString, QString> completion_details_;  // of the list on screen
  QString completion_tip_;
};

}  // namespace tcs
