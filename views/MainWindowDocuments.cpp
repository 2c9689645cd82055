// The File menu's work for MainWindow: opening, saving and the recent files. A document
// is the whole file or nothing, and unsaved changes are never dropped without asking.
#include "views/MainWindow.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSaveFile>
#include <QSettings>

#include "lang/ReadSource.h"
#include "views/code/CodePanel.h"
#include "views/editor/SourceEditor.h"
#include "views/panels/KernelPanel.h"

namespace tcs {

namespace {
constexpr int kMaxRecent = 10;
}  // namespace

bool MainWindow::open_file(const QString& path, QString* problem) {
  // The whole file or nothing: a file the editor could show only in part (a NUL byte,
  // bytes that are not UTF-8, too large) is refused, so saving never writes back less
  // than was on disk. The open document stays as it was.
  auto text = read_source_file(QFile::encodeName(path).toStdString());
  if (!text) {
    if (problem) *problem = QString::fromStdString(text.error());
    else QMessageBox::warning(this, tr("Open"), QString::fromStdString(text.error()));
    return false;
  }
  set_source(QFileInfo(path).absoluteFilePath(), QString::fromStdString(*text));
  add_recent(path_);
  return true;
}

void MainWindow::set_source(const QString& name, const QString& text) {
  if (name != path_) code_->mark_stale(tr("code from %1").arg(path_.isEmpty() ? tr("untitled.tc") : QFileInfo(path_).fileName()));
  path_ = name;
  kernel_->reset();
  editor_->setText(text);
  editor_->setModified(false);
  editor_->SendScintilla(QsciScintilla::SCI_EMPTYUNDOBUFFER);
  update_title();
  compile_now();
}

void MainWindow::new_file() {
  if (!maybe_save()) return;
  set_source({}, QStringLiteral("# sizes: N=16\n\ndef kernel(float(N) A) -> (B) {\n    B(i) = A(i)\n}\n"));
}

void MainWindow::open_dialog() {
  if (!maybe_save()) return;
  QString dir = path_.isEmpty() ? QSettings().value(QStringLiteral("lastDir"), examples_dir_).toString()
                                : QFileInfo(path_).absolutePath();
  QString path = QFileDialog::getOpenFileName(this, tr("Open comprehension"), dir,
                                              tr("Tensor comprehensions (*.tc);;All files (*)"));
  if (path.isEmpty()) return;
  QSettings().setValue(QStringLiteral("lastDir"), QFileInfo(path).absolutePath());
  open_file(path);
}

bool MainWindow::save_to(const QString& path) {
  // QSaveFile writes a temporary and renames it: a failed save never truncates the file.
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(editor_->text().toUtf8()) < 0 || !f.commit()) {
    QMessageBox::warning(this, tr("Save"), tr("Cannot save %1: %2").arg(path, f.errorString()));
    return false;
  }
  path_ = QFileInfo(path).absoluteFilePath();
  editor_->setModified(false);
  add_recent(path_);
  update_title();
  return true;
}

bool MainWindow::save() { return path_.isEmpty() ? save_as() : save_to(path_); }

bool MainWindow::save_as() {
  QFileDialog dialog(this, tr("Save comprehension"), path_, tr("Tensor comprehensions (*.tc);;All files (*)"));
  dialog.setAcceptMode(QFileDialog::AcceptSave);
  dialog.setDefaultSuffix(QStringLiteral("tc"));  // a bare name gets .tc, so Open lists it
  if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return false;
  return save_to(dialog.selectedFiles().first());
}

// Unsaved changes are never dropped silently: ask, and stay put on Cancel.
bool MainWindow::maybe_save() {
  if (!editor_->isModified()) return true;
  auto answer = QMessageBox::warning(
      this, tr("Unsaved changes"),
      tr("%1 has unsaved changes. Save them?").arg(path_.isEmpty() ? tr("The new file") : QFileInfo(path_).fileName()),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

void MainWindow::add_recent(const QString& path) {
  if (path.isEmpty()) return;
  QSettings s;
  QStringList recent = s.value(QStringLiteral("recentFiles")).toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kMaxRecent) recent.removeLast();
  s.setValue(QStringLiteral("recentFiles"), recent);
  rebuild_recent_menu();
}

void MainWindow::rebuild_recent_menu() {
  recent_menu_->clear();
  for (const QString& path : QSettings().value(QStringLiteral("recentFiles")).toStringList()) {
    recent_menu_->addAction(QFileInfo(path).fileName() + "  —  " + QFileInfo(path).absolutePath(), this, [this, path] {
      if (maybe_save()) open_file(path);
    });
  }
  recent_menu_->setEnabled(!recent_menu_->isEmpty());
}

void MainWindow::update_title() {
  QString name = path_.isEmpty() ? tr("untitled.tc") : QFileInfo(path_).fileName();
  setWindowTitle(tr("%1[*] — TC Studio").arg(name));
  setWindowModified(editor_->isModified());
}

}  // namespace tcs
