#include "views/editor/FindBar.h"

#include <Qsci/qsciscintilla.h>

#include <QCheckBox>
#include <QGridLayout>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPushButton>

namespace tcs {

FindBar::FindBar(QsciScintilla* editor, QWidget* parent) : QWidget(parent), editor_(editor) {
  find_ = new QLineEdit(this);
  find_->setPlaceholderText(tr("Find"));
  replace_ = new QLineEdit(this);
  replace_->setPlaceholderText(tr("Replace with"));
  case_ = new QCheckBox(tr("Match case"), this);
  auto* next = new QPushButton(tr("Next"), this);
  auto* prev = new QPushButton(tr("Previous"), this);
  auto* one = new QPushButton(tr("Replace"), this);
  auto* all = new QPushButton(tr("Replace all"), this);
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(4, 2, 4, 2);
  grid->addWidget(find_, 0, 0);
  grid->addWidget(next, 0, 1);
  grid->addWidget(prev, 0, 2);
  grid->addWidget(case_, 0, 3);
  replace_row_ = new QWidget(this);
  auto* row = new QHBoxLayout(replace_row_);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(replace_, 1);
  row->addWidget(one);
  row->addWidget(all);
  grid->addWidget(replace_row_, 1, 0, 1, 4);
  connect(find_, &QLineEdit::returnPressed, this, [this] { find_next(true); });
  connect(next, &QPushButton::clicked, this, [this] { find_next(true); });
  connect(prev, &QPushButton::clicked, this, [this] { find_next(false); });
  connect(one, &QPushButton::clicked, this, &FindBar::replace_one);
  connect(all, &QPushButton::clicked, this, &FindBar::replace_all);
  hide();
}

void FindBar::set_target(QsciScintilla* target) {
  if (target == editor_) return;
  editor_ = target;
  replace_row_->setEnabled(!target->isReadOnly());
}

void FindBar::open_find() {
  replace_row_->hide();
  show();
  if (editor_->hasSelectedText() && !editor_->selectedText().contains('\n')) find_->setText(editor_->selectedText());
  find_->setFocus();
  find_->selectAll();
}

void FindBar::open_replace() {
  open_find();
  replace_row_->show();
  replace_row_->setEnabled(!editor_->isReadOnly());
}

bool FindBar::find_next(bool forward) {
  if (find_->text().isEmpty()) return false;
  int line = -1, index = -1;
  if (!forward && editor_->hasSelectedText()) {
    int l1, i1;
    editor_->getSelection(&line, &index, &l1, &i1);  // search backwards from the selection's start
  }
  bool found = editor_->findFirst(find_->text(), false, case_->isChecked(), false, true, forward, line, index);
  find_->setStyleSheet(found ? QString() : QStringLiteral("background: #fbdddd"));
  return found;
}

void FindBar::replace_one() {
  if (editor_->isReadOnly()) return;
  if (editor_->hasSelectedText() &&
      editor_->selectedText().compare(find_->text(), case_->isChecked() ? Qt::CaseSensitive : Qt::CaseInsensitive) == 0)
    editor_->replaceSelectedText(replace_->text());
  find_next(true);
}

int FindBar::replace_all() {
  if (find_->text().isEmpty() || editor_->isReadOnly()) return 0;
  int count = 0;
  editor_->beginUndoAction();
  editor_->setCursorPosition(0, 0);
  bool found = editor_->findFirst(find_->text(), false, case_->isChecked(), false, false, true, 0, 0);
  while (found) {
    editor_->replace(replace_->text());
    ++count;
    found = editor_->findNext();
  }
  editor_->endUndoAction();
  return count;
}

void FindBar::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape) {
    hide();
    editor_->setFocus();
    return;
  }
  QWidget::keyPressEvent(event);
}

}  // namespace tcs
