#pragma once
// The Generated code dock: a tab per text the target produces (C, LLVM IR, assembly) and
// the schedule tree. It follows the compile service itself: C and the schedule as soon as
// they exist, LLVM IR and assembly with the final result; for sizes the kernel cannot
// take it says why. A result without code (an error, a cancelled job) keeps the code on
// screen, faded and marked stale with the reason, until new code replaces it. The links
// from lines to loops and statements come with the code.
#include <QTabWidget>
#include <array>
#include <memory>

#include "views/code/CodeLinks.h"

namespace tcs {

class CodeView;
class CompileService;
struct CompileOutcome;

class CodePanel : public QTabWidget {
  Q_OBJECT
 public:
  enum Pane { CPane, LlvmPane, AsmPane, SchedulePane, PaneCount };

  explicit CodePanel(QWidget* parent = nullptr);
  void follow(CompileService* service);

  CodeView* view(int pane) const { return panes_[size_t(pane)]; }
  const std::array<CodeView*, PaneCount>& views() const { return panes_; }
  // How the shown lines map to loops and statements.
  const CodeLinks& links() const { return links_; }
  // Fades every pane with code in it, with the reason, until new code replaces it.
  void mark_stale(const QString& reason);

 signals:
  // New code is on screen (links() describes it).
  void code_shown();
  void line_selected(const LineOrigin& origin);

 private:
  void show_outcome(const CompileOutcome& o);

  std::array<CodeView*, PaneCount> panes_{};
  CodeLinks links_;
  std::shared_ptr<const CompileOutcome> shown_;  // the result whose code is on screen
};

}  // namespace tcs
