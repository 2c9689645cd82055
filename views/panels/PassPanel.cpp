#include "views/panels/PassPanel.h"

#include <QCheckBox>
#include <QListView>
#include <QVBoxLayout>

#include "views/code/CodeLinks.h"
#include "views/code/CodeView.h"
#include "views/models/PassListModel.h"
#include "views/service/CompileService.h"

namespace tcs {

PassPanel::PassPanel(QWidget* parent) : QWidget(parent) {
  model_ = new PassListModel(this);
  filter_ = new ChangedPassFilter(this);
  filter_->setSourceModel(model_);
  list_ = new QListView(this);
  list_->setObjectName(QStringLiteral("passList"));
  list_->setModel(filter_);
  list_->setMaximumHeight(160);
  auto* changed_only = new QCheckBox(tr("Only passes that changed the schedule"), this);
  tree_ = new CodeView(CodeLanguage::ScheduleTree, this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(changed_only);
  layout->addWidget(list_);
  layout->addWidget(tree_, 1);
  connect(changed_only, &QCheckBox::toggled, filter_, &ChangedPassFilter::set_changed_only);
  connect(list_->selectionModel(), &QItemSelectionModel::currentChanged, this, [this] { show_selected(); });
}

void PassPanel::follow(CompileService* service) {
  connect(service, &CompileService::compiled, this, &PassPanel::show_outcome);
}

void PassPanel::show_outcome(std::shared_ptr<const CompileOutcome> o) {
  if (!o->result) {  // errors keep the last passes, faded
    if (o->final && o->error && !tree_->code().text.empty())
      tree_->set_stale(tr("passes of the last good compile; now: %1").arg(QString::fromStdString(o->error_message())));
    return;
  }
  outcome_ = o;
  const auto& passes = o->result->lowering.passes;
  int current = list_->currentIndex().isValid() ? filter_->mapToSource(list_->currentIndex()).row()
                                                : int(passes.size()) - 1;
  model_->set_passes(passes);
  QModelIndex idx = filter_->mapFromSource(model_->index(std::min(current, model_->rowCount() - 1)));
  if (idx.isValid()) list_->setCurrentIndex(idx);
  if (tree_->isVisible()) show_selected();  // else when its dock is shown
}

void PassPanel::show_selected() {
  QModelIndex index = list_->currentIndex();
  if (!index.isValid() || !outcome_ || !outcome_->result) return;
  if (const PassSnapshot* p = model_->pass(filter_->mapToSource(index).row()))
    tree_->set_code(schedule_tree_text(p->tree, outcome_->result->lowering.nest));
}

}  // namespace tcs
