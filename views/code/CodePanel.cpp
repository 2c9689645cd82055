#include "views/code/CodePanel.h"

#include "views/code/CodeView.h"
#include "views/service/CompileService.h"

namespace tcs {

CodePanel::CodePanel(QWidget* parent) : QTabWidget(parent) {
  const std::pair<CodeLanguage, QString> panes[PaneCount] = {{CodeLanguage::C, tr("C")},
                                                             {CodeLanguage::LlvmIr, tr("LLVM IR")},
                                                             {CodeLanguage::Assembly, tr("x86 assembly")},
                                                             {CodeLanguage::ScheduleTree, tr("Schedule tree")}};
  for (int p = 0; p < PaneCount; ++p) {
    panes_[size_t(p)] = new CodeView(panes[p].first, this);
    panes_[size_t(p)]->setObjectName(QStringLiteral("pane%1").arg(p));
    addTab(panes_[size_t(p)], panes[p].second);
    connect(panes_[size_t(p)], &CodeView::line_selected, this, &CodePanel::line_selected);
  }
  // CUDA C and PTX panes join these when the CUDA target delivers them.
}

void CodePanel::follow(CompileService* service) {
  connect(service, &CompileService::compiled, this,
          [this](std::shared_ptr<const CompileOutcome> o) { show_outcome(*o); });
}

void CodePanel::show_outcome(const CompileOutcome& o) {
  if (o.result) {
    shown_ = std::make_shared<CompileOutcome>(o);
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
    QString from = tr("the last good compile");
    if (shown_) {
      std::string change = kernel_change(*shown_, o);
      if (change == "the file") from = tr("%1").arg(QString::fromStdString(shown_->checked->file.name()));
    }
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
