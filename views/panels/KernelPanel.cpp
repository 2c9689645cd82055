#include "views/panels/KernelPanel.h"

#include <algorithm>

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QTableView>
#include <QVBoxLayout>

#include "views/models/SizesModel.h"
#include "views/panels/OptionsPanel.h"
#include "views/panels/SizeDelegate.h"
#include "views/service/CompileService.h"
#include "views/theme/Tables.h"

namespace tcs {

KernelPanel::KernelPanel(QWidget* parent) : QWidget(parent) {
  entry_ = new QComboBox(this);
  entry_->setObjectName(QStringLiteral("entry"));
  entry_->setToolTip(tr("The def to compile"));
  sizes_ = new SizesModel(this);
  sizes_view_ = make_table(this, QStringLiteral("sizes"));
  sizes_view_->setModel(sizes_);
  sizes_view_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                               QAbstractItemView::AnyKeyPressed);
  sizes_view_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);  // no sideways scrolling
  sizes_view_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* delegate = new SizeDelegate(sizes_view_);
  sizes_view_->setItemDelegateForColumn(SizesModel::ValueColumn, delegate);
  sizes_hint_ = new QLabel(this);
  sizes_hint_->setObjectName(QStringLiteral("sizesHint"));
  sizes_hint_->setWordWrap(true);
  sizes_hint_->setStyleSheet(QStringLiteral("color: #c02020"));
  // Two lines are always reserved, so a message never moves the form under the cursor.
  sizes_hint_->setFixedHeight(2 * sizes_hint_->fontMetrics().lineSpacing() + 2);
  connect(delegate, &SizeDelegate::problem, sizes_hint_, &QLabel::setText);
  connect(sizes_, &QAbstractItemModel::modelReset, this, &KernelPanel::fit_sizes_table);
  options_ = new OptionsPanel(this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(new QLabel(tr("Entry"), this));
  layout->addWidget(entry_);
  layout->addWidget(new QLabel(tr("Sizes"), this));
  layout->addWidget(sizes_view_);
  layout->addWidget(sizes_hint_);
  // The options form scrolls, so the dock fits a small screen whatever the field count.
  auto* scroll = new QScrollArea(this);
  scroll->setObjectName(QStringLiteral("optionsScroll"));
  scroll->setWidget(options_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  layout->addWidget(scroll, 1);
  connect(entry_, &QComboBox::currentTextChanged, this, [this] {
    sizes_->clear_overrides();  // another def's sizes
    emit changed();
  });
  connect(sizes_, &SizesModel::overrides_changed, this, &KernelPanel::changed);
}

// Tall enough for every size of the kernel (up to eight rows, the most any example has),
// so no size hides behind a scroll bar.
void KernelPanel::fit_sizes_table() {
  int rows = std::clamp(sizes_->rowCount(), 1, 8);
  int height = sizes_view_->horizontalHeader()->sizeHint().height() + rows * sizes_view_->verticalHeader()->defaultSectionSize() +
               2 * sizes_view_->frameWidth();
  sizes_view_->setFixedHeight(height);
}

void KernelPanel::follow(CompileService* service) {
  connect(service, &CompileService::compiled, this,
          [this](std::shared_ptr<const CompileOutcome> o) { show_outcome(*o); });
}

void KernelPanel::reset() {
  sizes_->clear_overrides();
  QSignalBlocker block(entry_);
  entry_->clear();
}

void KernelPanel::show_outcome(const CompileOutcome& o) {
  // Entry selector: the defs of the file, keeping the selection.
  QStringList defs;
  for (const SemaDef& d : o.checked->defs) defs << QString::fromStdString(d.name);
  QStringList have;
  for (int i = 0; i < entry_->count(); ++i) have << entry_->itemText(i);
  if (defs != have) {
    QSignalBlocker block(entry_);
    QString keep = entry_->currentText();
    entry_->clear();
    entry_->addItems(defs);
    if (defs.contains(keep)) entry_->setCurrentText(keep);
  }
  if (const SemaDef* def = o.def()) {
    if (entry_->currentText() != QString::fromStdString(def->name)) {
      QSignalBlocker block(entry_);
      entry_->setCurrentText(QString::fromStdString(def->name));
    }
    sizes_->set_parameters(def->size_params, o.header_sizes, o.shapes ? o.shapes->sizes : SizeMap{});
  }
  if (o.final) sizes_hint_->setText(o.failed(ErrorKind::Sizes) ? QString::fromStdString(o.error_message()) : QString());
  options_->set_available(!o.checked->defs.empty());
  if (!o.options_json.empty()) options_->show_used(o.options_json);
  if (o.failed(ErrorKind::Options)) options_->show_error(QString::fromStdString(o.error_message()));
}

}  // namespace tcs
