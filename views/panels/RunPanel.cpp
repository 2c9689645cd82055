#include "views/panels/RunPanel.h"

#include <QFontDatabase>

#include "views/service/CompileService.h"

namespace tcs {

RunPanel::RunPanel(QWidget* parent) : QPlainTextEdit(parent) {
  setObjectName(QStringLiteral("runReport"));
  setReadOnly(true);
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setPlaceholderText(tr("Build ▸ Run with Check (Ctrl+R) runs the kernel on random inputs and "
                        "compares it with the reference interpreter."));
}

void RunPanel::follow(CompileService* service) {
  connect(service, &CompileService::compiled, this,
          [this](std::shared_ptr<const CompileOutcome> o) { show_outcome(*o); });
}

void RunPanel::show_started() { setPlainText(tr("compiling and running...")); }

void RunPanel::show_outcome(const CompileOutcome& o) {
  if (!o.run_requested || !o.final) return;
  if (!o.run) {
    setPlainText(tr("run failed: %1").arg(QString::fromStdString(o.error_message())));
    return;
  }
  const RunReport& rr = *o.run;
  QString text = tr("%1  median %2 ms over %3 runs, %4 GFLOP/s, %5 thread(s)\nworst error %6\n")
                     .arg(rr.ok ? tr("check passed") : tr("CHECK FAILED"))
                     .arg(rr.median_ms, 0, 'g', 4)
                     .arg(rr.repeats)
                     .arg(rr.gflops, 0, 'f', 2)
                     .arg(rr.threads)
                     .arg(rr.worst_error, 0, 'g', 3);
  for (const std::string& l : rr.lines) text += QString::fromStdString(l) + "\n";
  setPlainText(text);
}

}  // namespace tcs
