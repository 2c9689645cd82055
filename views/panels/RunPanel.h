#pragma once
// The Run dock: what Build ▸ Run with Check measured (median time, GFLOP/s, threads, the
// worst error per output against the interpreter) or why the run failed. It follows the
// compile service itself and shows only results of jobs that asked for a run.
#include <QPlainTextEdit>
#include <memory>

namespace tcs {

class CompileService;
struct CompileOutcome;

class RunPanel : public QPlainTextEdit {
  Q_OBJECT
 public:
  explicit RunPanel(QWidget* parent = nullptr);
  void follow(CompileService* service);
  void show_started();

 private:
  void show_outcome(const CompileOutcome& o);
};

}  // namespace tcs
