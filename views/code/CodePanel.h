#pragma once
// The Generated code dock: a pane per text the target produces (C, LLVM IR, assembly) and
// the schedule tree, arranged in one to three side-by-side columns of tabs, as Compiler
// Explorer shows them (a tab's context menu moves it; View ▸ Code Layout picks common
// arrangements; the window saves the layout). It follows the compile service itself: C and
// the schedule as soon as they exist, LLVM IR and assembly with the final result. A result
// without code (an error, a cancelled job) keeps the code on screen, faded and marked
// stale with the reason, until new code replaces it. The links from lines to loops and
// statements come with the code and hold across every pane, whatever the layout.
#include <QWidget>
#include <array>
#include <memory>
#include <vector>

#include "views/code/CodeLinks.h"

class QSplitter;
class QTabWidget;

namespace tcs {

class CodeView;
class CompileService;
struct CompileOutcome;

class CodePanel : public QWidget {
  Q_OBJECT
 public:
  enum Pane { CPane, LlvmPane, AsmPane, SchedulePane, PaneCount };
  static constexpr int kMaxColumns = 3;

  explicit CodePanel(QWidget* parent = nullptr);
  void follow(CompileService* service);

  CodeView* view(int pane) const { return panes_[size_t(pane)]; }
  const std::array<CodeView*, PaneCount>& views() const { return panes_; }
  // How the shown lines map to loops and statements.
  const CodeLinks& links() const { return links_; }
  // Fades every pane with code in it, with the reason, until new code replaces it.
  void mark_stale(const QString& reason);

  // The layout: the panes of each column, left to right, in tab order. Panes left out
  // join the last column; empty columns are dropped.
  std::vector<std::vector<int>> columns() const;
  void set_columns(const std::vector<std::vector<int>>& columns);
  // As text for the settings ("0,3|2": C and schedule, then assembly); false if unreadable.
  QString layout_text() const;
  bool set_layout_text(const QString& text);
  QSplitter* splitter() const { return splitter_; }
  // Moves a pane to another column (kMaxColumns at most; one past the last opens one).
  void move_pane(int pane, int column);
  // Shows a pane: the current tab of its column.
  void show_pane(int pane);

 signals:
  // New code is on screen (links() describes it).
  void code_shown();
  void line_selected(const LineOrigin& origin);

 private:
  void show_outcome(const CompileOutcome& o);
  QTabWidget* new_column();
  void tab_menu(QTabWidget* column, const QPoint& at);

  std::array<CodeView*, PaneCount> panes_{};
  std::array<QString, PaneCount> titles_;
  QSplitter* splitter_;
  std::vector<QTabWidget*> columns_;
  CodeLinks links_;
  std::string shown_file_;  // the file whose code is on screen
};

}  // namespace tcs
