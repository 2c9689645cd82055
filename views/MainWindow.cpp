#include "MainWindow.h"

#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTableView>

#include "DiagnosticsModel.h"
#include "SourceEditor.h"
#include "lang/Frontend.h"

namespace tcs {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("TC Studio"));
  editor_ = new SourceEditor(this);
  setCentralWidget(editor_);

  model_ = new DiagnosticsModel(this);
  problems_ = new QTableView(this);
  problems_->setObjectName(QStringLiteral("problems"));
  problems_->setModel(model_);
  problems_->setSelectionBehavior(QAbstractItemView::SelectRows);
  problems_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  problems_->verticalHeader()->hide();
  problems_->horizontalHeader()->setStretchLastSection(true);
  problems_->setWordWrap(false);
  auto* dock = new QDockWidget(tr("Problems"), this);
  dock->setObjectName(QStringLiteral("problemsDock"));
  dock->setWidget(problems_);
  addDockWidget(Qt::BottomDockWidgetArea, dock);

  status_ = new QLabel(this);
  statusBar()->addPermanentWidget(status_);

  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::open_dialog);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  connect(editor_, &QsciScintilla::textChanged, this, &MainWindow::recheck);
  connect(problems_, &QAbstractItemView::activated, this, &MainWindow::jump_to_problem);
  connect(problems_, &QAbstractItemView::clicked, this, &MainWindow::jump_to_problem);
  resize(1000, 700);
}

bool MainWindow::open_file(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    QMessageBox::warning(this, tr("Open"), tr("Cannot open %1: %2").arg(path, f.errorString()));
    return false;
  }
  set_source(path, QString::fromUtf8(f.readAll()));
  return true;
}

void MainWindow::set_source(const QString& name, const QString& text) {
  name_ = name;
  setWindowTitle(tr("%1 — TC Studio").arg(QFileInfo(name).fileName()));
  editor_->setText(text);  // triggers recheck()
}

void MainWindow::recheck() {
  QByteArray utf8 = editor_->text().toUtf8();
  auto checked = check_source(QFileInfo(name_).fileName().toStdString(), utf8.toStdString());
  editor_->show_diagnostics(checked->diagnostics);
  int errors = 0, warnings = 0;
  for (const Diagnostic& d : checked->diagnostics) (d.severity == Severity::Error ? errors : warnings) += 1;
  model_->set_diagnostics(checked->file, checked->diagnostics);
  problems_->resizeColumnToContents(DiagnosticsModel::SeverityColumn);
  problems_->resizeColumnToContents(DiagnosticsModel::LineColumnColumn);
  QString defs;
  for (const SemaDef& d : checked->defs) defs += (defs.isEmpty() ? "" : ", ") + QString::fromStdString(d.name);
  status_->setText(errors || warnings ? tr("%1 error(s), %2 warning(s)").arg(errors).arg(warnings)
                                      : tr("no problems · defs: %1").arg(defs));
}

void MainWindow::open_dialog() {
  QString path = QFileDialog::getOpenFileName(this, tr("Open comprehension"), QFileInfo(name_).absolutePath(),
                                              tr("Tensor comprehensions (*.tc);;All files (*)"));
  if (!path.isEmpty()) open_file(path);
}

void MainWindow::jump_to_problem(const QModelIndex& index) {
  if (!index.isValid()) return;
  const Diagnostic& d = model_->diagnostic(index.row());
  editor_->select_bytes(d.range.begin, std::max(d.range.end, d.range.begin + 1));
}

}  // namespace tcs
