#pragma once
// A read-only pane of generated text (C, LLVM IR, assembly, CUDA, PTX, schedule tree)
// that knows where each line came from. It can hide comment and directive lines without
// losing that map, marks the lines a statement generated, and reports the origin of the
// line the user clicks.
#include <Qsci/qsciscintilla.h>

#include <functional>

class QLabel;

#include "views/code/CodeLexer.h"
#include "codegen/GeneratedText.h"

namespace tcs {

class CodeView : public QsciScintilla {
  Q_OBJECT
 public:
  CodeView(CodeLanguage language, QWidget* parent = nullptr);

  void set_code(const GeneratedText& code);
  void set_placeholder(const QString& message);  // shown instead of code (e.g. why there is none)
  void set_hide_comments(bool hide);
  void set_hide_directives(bool hide);
  void set_dark(bool dark);
  // Marks the code shown as out of date (faded, with the reason in a banner) until
  // set_code shows new code; an empty reason clears the mark.
  void set_stale(const QString& reason);
  QString stale_reason() const { return stale_reason_; }

  // Marks every shown line whose origin satisfies `pred` and scrolls to the first;
  // returns how many lines are marked.
  int mark_lines(const std::function<bool(const LineOrigin&)>& pred);
  std::vector<int> marked_lines() const;  // shown line numbers, 0-based
  LineOrigin origin_of_line(int line) const;

  CodeLanguage language() const { return lang_; }
  const GeneratedText& code() const { return code_; }

  static constexpr int kLinkedMarker = 1;

 signals:
  // The user put the cursor on a line (by click or keys) that has an origin.
  void line_selected(const tcs::LineOrigin& origin);

 private:
  void refill();
  void place_banner();
  void resizeEvent(QResizeEvent* event) override;

  CodeLanguage lang_;
  CodeLexer* lexer_;
  GeneratedText code_;
  std::vector<LineOrigin> shown_;  // origin of each shown line
  bool hide_comments_ = false, hide_directives_ = false;
  bool filling_ = false;
  QString stale_reason_;
  QLabel* banner_;
};

}  // namespace tcs
