#pragma once
// The Run dock: what Build ▸ Run measured (median time, GFLOP/s, threads, the worst error
// per output against the interpreter, or why the check was skipped) or why the run
// failed. While a run is on, a progress line and a Cancel button; once the kernel, its
// sizes or options, or the run settings change, the report is greyed and says it is
// stale. It follows the compile service itself. Above the report, how the next run is
// timed: threads, and warm or cold caches (the CLI's run --threads and --cold; the
// benchmark times cold).
#include <QWidget>
#include <memory>
#include <string>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace tcs {

class CompileService;
struct CompileOutcome;

class RunPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunPanel(QWidget* parent = nullptr);
  void follow(CompileService* service);
  void show_started();

  QPlainTextEdit* report() const { return report_; }
  QPushButton* cancel_button() const { return cancel_; }
  QLabel* progress_label() const { return stage_; }
  QSpinBox* threads_box() const { return threads_; }
  QCheckBox* cold_box() const { return cold_; }
  int threads() const;
  bool cold_caches() const;
  void set_threads(int threads);  // clamped to this machine's cores
  void set_cold_caches(bool cold);
  bool running() const { return running_; }
  // Empty while the report describes the kernel in the editor; the reason otherwise.
  QString stale_reason() const { return stale_reason_; }

 private:
  void show_outcome(const CompileOutcome& o);
  void set_running(bool running);
  void set_stale(const QString& reason);
  void update_stale();

  QLabel* stage_;
  QProgressBar* bar_;
  QPushButton* cancel_;
  QPlainTextEdit* report_;
  QSpinBox* threads_;
  QCheckBox* cold_;
  bool running_ = false;
  QString stale_reason_;
  std::string kernel_change_;  // what changed since the measured run, as kernel_change says
  std::shared_ptr<const CompileOutcome> measured_;  // the run the report shows
};

}  // namespace tcs
