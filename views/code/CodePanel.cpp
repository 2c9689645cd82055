#include "views/code/CodePanel.h"

#include <QMenu>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "views/code/CodeView.h"
#include "views/service/CompileService.h"

namespace tcs {

CodePanel::CodePanel(QWidget* parent) : QWidget(parent) {
  const std::pair<CodeLanguage, QString> panes[PaneCount] = {{CodeLanguage::C, tr("C")},
                                                             {CodeLanguage::LlvmIr, tr("LLVM IR")},
                                                             {CodeLanguage::Assembly, tr("x86 assembly")},
                                                             {CodeLanguage::ScheduleTree, tr("Schedule tree")}};
  splitter_ = new QSplitter(Qt::Horizontal, this);
  splitter_->setObjectName(QStringLiteral("codeColumns"));
  splitter_->setChildrenCollapsible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter_);
  for (int p = 0; p < PaneCount; ++p) {
    panes_[size_t(p)] = new CodeView(panes[p].first, this);
    panes_[size_t(p)]->setObjectName(QStringLiteral("pane%1").arg(p));
    titles_[size_t(p)] = panes[p].second;
    connect(panes_[size_t(p)], &CodeView::line_selected, this, &CodePanel::line_selected);
  }
  set_columns({{CPane, LlvmPane, AsmPane, SchedulePane}});
  // CUDA C and PTX panes join these when the CUDA target delivers them.
}

QTabWidget* CodePanel::new_column() {
  auto* column = new QTabWidget(splitter_);
  column->setObjectName(QStringLiteral("codeColumn%1").arg(columns_.size()));
  column->tabBar()->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(column->tabBar(), &QWidget::customContextMenuRequested, this,
          [this, column](const QPoint& at) { tab_menu(column, at); });
  splitter_->addWidget(column);
  columns_.push_back(column);
  return column;
}

std::vector<std::vector<int>> CodePanel::columns() const {
  std::vector<std::vector<int>> out;
  for (QTabWidget* column : columns_) {
    std::vector<int> panes;
    for (int t = 0; t < column->count(); ++t)
      for (int p = 0; p < PaneCount; ++p)
        if (column->widget(t) == panes_[size_t(p)]) panes.push_back(p);
    out.push_back(panes);
  }
  return out;
}

void CodePanel::set_columns(const std::vector<std::vector<int>>& wanted) {
  std::vector<std::vector<int>> cols;
  std::array<bool, PaneCount> placed{};
  for (const std::vector<int>& c : wanted) {
    std::vector<int> panes;
    for (int p : c)
      if (p >= 0 && p < PaneCount && !placed[size_t(p)]) placed[size_t(p)] = true, panes.push_back(p);
    if (panes.empty()) continue;
    if (int(cols.size()) < kMaxColumns) cols.push_back(panes);
    else cols.back().insert(cols.back().end(), panes.begin(), panes.end());  // no pane is lost
  }
  if (cols.empty()) cols.emplace_back();
  for (int p = 0; p < PaneCount; ++p)
    if (!placed[size_t(p)]) cols.back().push_back(p);
  // Rebuild the columns; the panes move, keeping their text, scroll position and marks.
  std::vector<int> current(cols.size());
  for (size_t i = 0; i < cols.size(); ++i)
    current[i] = i < columns_.size() && columns_[i]->currentWidget()
                     ? int(std::find(panes_.begin(), panes_.end(), columns_[i]->currentWidget()) - panes_.begin())
                     : cols[i].front();
  for (CodeView* v : panes_) v->setParent(this);
  for (QTabWidget* c : columns_) {  // later: a tab bar of one may be delivering the event that got us here
    c->hide();
    c->setParent(nullptr);
    c->deleteLater();
  }
  columns_.clear();
  for (size_t i = 0; i < cols.size(); ++i) {
    QTabWidget* column = new_column();
    for (int p : cols[i]) column->addTab(panes_[size_t(p)], titles_[size_t(p)]);
    if (std::find(cols[i].begin(), cols[i].end(), current[i]) != cols[i].end())
      column->setCurrentWidget(panes_[size_t(current[i])]);
  }
  QList<int> sizes;
  for (size_t i = 0; i < cols.size(); ++i) sizes << 1000;
  splitter_->setSizes(sizes);
}

QString CodePanel::layout_text() const {
  QStringList cols;
  for (const std::vector<int>& c : columns()) {
    QStringList panes;
    for (int p : c) panes << QString::number(p);
    cols << panes.join(',');
  }
  return cols.join('|');
}

bool CodePanel::set_layout_text(const QString& text) {
  std::vector<std::vector<int>> cols;
  for (const QString& c : text.split('|')) {
    std::vector<int> panes;
    for (const QString& p : c.split(',', Qt::SkipEmptyParts)) {
      bool ok = false;
      int pane = p.toInt(&ok);
      if (!ok || pane < 0 || pane >= PaneCount) return false;
      panes.push_back(pane);
    }
    cols.push_back(panes);
  }
  set_columns(cols);
  return true;
}

void CodePanel::move_pane(int pane, int column) {
  std::vector<std::vector<int>> cols = columns();
  for (std::vector<int>& c : cols) c.erase(std::remove(c.begin(), c.end(), pane), c.end());
  column = std::clamp(column, 0, kMaxColumns - 1);
  if (column >= int(cols.size())) cols.resize(size_t(column) + 1);
  cols[size_t(column)].push_back(pane);
  set_columns(cols);
  show_pane(pane);
}

void CodePanel::show_pane(int pane) {
  for (QTabWidget* c : columns_)
    if (c->indexOf(panes_[size_t(pane)]) >= 0) c->setCurrentWidget(panes_[size_t(pane)]);
}

void CodePanel::tab_menu(QTabWidget* column, const QPoint& at) {
  int tab = column->tabBar()->tabAt(at);
  if (tab < 0) return;
  int pane = int(std::find(panes_.begin(), panes_.end(), column->widget(tab)) - panes_.begin());
  int here = int(std::find(columns_.begin(), columns_.end(), column) - columns_.begin());
  QMenu menu(this);
  for (int c = 0; c < std::min(int(columns_.size()) + 1, kMaxColumns); ++c) {
    if (c == here) continue;
    QString label = c == int(columns_.size()) ? tr("Move to a New Column on the Right") : tr("Move to Column %1").arg(c + 1);
    // After the menu's event is done: moving rebuilds the columns, this tab bar included.
    menu.addAction(label, this, [this, pane, c] { QTimer::singleShot(0, this, [this, pane, c] { move_pane(pane, c); }); });
  }
  if (!menu.isEmpty()) menu.exec(column->tabBar()->mapToGlobal(at));
}

void CodePanel::follow(CompileService* service) {
  connect(service, &CompileService::compiled, this,
          [this](std::shared_ptr<const CompileOutcome> o) { show_outcome(*o); });
}

void CodePanel::show_outcome(const CompileOutcome& o) {
  if (o.result) {
    shown_file_ = o.checked->file.name();
    const CompileResult& r = *o.result;
    links_ = CodeLinks(r.lowering.nest);
    panes_[CPane]->set_code(r.text("c"));
    if (!r.lowering.passes.empty())
      panes_[SchedulePane]->set_code(schedule_tree_text(r.lowering.passes.back().tree, r.lowering.nest));
    if (o.final) {
      panes_[LlvmPane]->set_code(r.text("llvm"));
      panes_[AsmPane]->set_code(r.text("asm"));
    } else {
      for (Pane p : {LlvmPane, AsmPane})
        if (panes_[p]->code().text.empty()) panes_[p]->set_placeholder(tr("compiling..."));
    }
    emit code_shown();
  } else if (o.final && o.error) {
    // No new code: what is shown stays, faded, saying what it was compiled from and why
    // nothing replaced it. A pane with nothing to keep says why it is empty.
    QString why = QString::fromStdString(o.error_message());
    QString from = shown_file_ != o.checked->file.name() ? QString::fromStdString(shown_file_) : tr("the last good compile");
    for (CodeView* v : panes_) {
      if (v->code().text.empty()) v->set_placeholder(tr("// no code: %1").arg(why));
      else v->set_stale(tr("code from %1; now: %2").arg(from, why));
    }
  }
}

void CodePanel::mark_stale(const QString& reason) {
  for (CodeView* v : panes_)
    if (!v->code().text.empty()) v->set_stale(reason);
}

}  // namespace tcs
