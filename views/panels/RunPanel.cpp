#include "views/panels/RunPanel.h"

#include <QCheckBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <thread>

#include "views/service/CompileService.h"

namespace tcs {

RunPanel::RunPanel(QWidget* parent) : QWidget(parent) {
  stage_ = new QLabel(this);
  stage_->setObjectName(QStringLiteral("runStage"));
  bar_ = new QProgressBar(this);
  bar_->setRange(0, 0);  // busy: a run's length is not known ahead
  bar_->setMaximumWidth(160);
  bar_->setTextVisible(false);
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setObjectName(QStringLiteral("cancelRun"));
  report_ = new QPlainTextEdit(this);
  report_->setObjectName(QStringLiteral("runReport"));
  report_->setReadOnly(true);
  report_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  report_->setPlaceholderText(tr("Build ▸ Run (Ctrl+R) runs the kernel on random inputs, times it and "
                                 "compares it with the reference interpreter."));
  threads_ = new QSpinBox(this);
  threads_->setObjectName(QStringLiteral("runThreads"));
  threads_->setRange(1, int(std::max(1u, std::thread::hardware_concurrency())));
  threads_->setValue(threads_->maximum());  // as the CLI's run: every core
  threads_->setPrefix(tr("threads: "));
  threads_->setToolTip(tr("Threads for the kernel's parallel loops (the CLI's run --threads)"));
  cold_ = new QCheckBox(tr("cold caches"), this);
  cold_->setObjectName(QStringLiteral("runCold"));
  cold_->setToolTip(tr("Every timed call starts with cold caches: copies of the buffers over 64 MiB are rotated, "
                       "as the benchmark and the CLI's run --cold time it. Off: warm, each call after the last."));
  // A report timed otherwise than the settings now say greys out, as for a changed kernel.
  connect(threads_, &QSpinBox::valueChanged, this, [this] { update_stale(); });
  connect(cold_, &QCheckBox::toggled, this, [this] { update_stale(); });
  auto* row = new QHBoxLayout;
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(threads_);
  row->addWidget(cold_);
  row->addWidget(stage_, 1);
  row->addWidget(bar_);
  row->addWidget(cancel_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(row);
  layout->addWidget(report_, 1);
  set_running(false);
}

void RunPanel::follow(CompileService* service) {
  connect(service, &CompileService::compiled, this,
          [this](std::shared_ptr<const CompileOutcome> o) {
            if (o->run_requested) {
              if (o->final) {
                measured_ = o;
                kernel_change_.clear();
              }
              show_outcome(*o);
            } else if (running_ && o->final) {  // a newer job replaced the run before it ended
              set_running(false);
              report_->setPlainText(tr("run superseded by a newer compile; Ctrl+R runs again"));
            } else if (measured_ && o->final) {
              kernel_change_ = kernel_change(*measured_, *o);
              update_stale();
            }
          });
  connect(service, &CompileService::progress, this, [this](const QString& stage) {
    if (running_ && !stage.isEmpty()) stage_->setText(stage + "...");
  });
  connect(cancel_, &QPushButton::clicked, service, &CompileService::cancel);
}

int RunPanel::threads() const { return threads_->value(); }
bool RunPanel::cold_caches() const { return cold_->isChecked(); }
void RunPanel::set_threads(int threads) { threads_->setValue(threads); }
void RunPanel::set_cold_caches(bool cold) { cold_->setChecked(cold); }

void RunPanel::show_started() {
  set_running(true);
  set_stale({});
  stage_->setText(tr("compiling..."));
  report_->clear();
}

void RunPanel::set_running(bool running) {
  running_ = running;
  bar_->setVisible(running);
  cancel_->setVisible(running);
  stage_->setVisible(running || !stale_reason_.isEmpty());
}

// Why the report no longer describes what a run would measure now: the kernel changed
// (kernel_change_), or the run settings did; nothing while it does.
void RunPanel::update_stale() {
  if (!measured_ || running_) return;
  if (!kernel_change_.empty())
    set_stale(tr("%1 changed since this run").arg(QString::fromStdString(kernel_change_)));
  else if (measured_->run && (measured_->run->threads != threads() || measured_->run->cold_caches != cold_caches()))
    set_stale(tr("the run settings changed since this run"));
  else
    set_stale({});
}

// A report that no longer describes the kernel in the editor stays readable but greyed,
// with the reason above it, until the next run replaces it.
void RunPanel::set_stale(const QString& reason) {
  stale_reason_ = reason;
  report_->setEnabled(reason.isEmpty());
  if (!running_) stage_->setText(reason.isEmpty() ? QString() : tr("Stale: %1.").arg(reason));
  set_running(running_);
}

void RunPanel::show_outcome(const CompileOutcome& o) {
  if (!o.final) return;
  set_running(false);
  set_stale({});
  if (!o.run) {
    report_->setPlainText(o.failed(ErrorKind::Cancelled) ? tr("run cancelled")
                                                         : tr("run failed: %1").arg(QString::fromStdString(o.error_message())));
    return;
  }
  const RunReport& rr = *o.run;
  QString verdict = !rr.checked ? tr("not checked") : rr.ok ? tr("check passed") : tr("CHECK FAILED");
  QString text = tr("%1  median %2 ms over %3 runs, %4 GFLOP/s, %5 thread(s), %6 caches\n")
                     .arg(verdict)
                     .arg(rr.median_ms, 0, 'g', 4)
                     .arg(rr.repeats)
                     .arg(rr.gflops, 0, 'f', 2)
                     .arg(rr.threads)
                     .arg(rr.cold_caches ? tr("cold") : tr("warm"));
  if (rr.checked) text += tr("worst error %1\n").arg(rr.worst_error, 0, 'g', 3);
  if (!rr.note.empty()) text += QString::fromStdString(rr.note) + "\n";
  for (const std::string& l : rr.lines) text += QString::fromStdString(l) + "\n";
  report_->setPlainText(text);
}

}  // namespace tcs
