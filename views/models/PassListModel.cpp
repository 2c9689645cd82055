#include "views/models/PassListModel.h"

#include <QFont>

namespace tcs {

PassListModel::PassListModel(QObject* parent) : QAbstractListModel(parent) {}

void PassListModel::set_passes(std::vector<PassSnapshot> passes) {
  bool same_rows = passes.size() == passes_.size();
  for (size_t i = 0; same_rows && i < passes.size(); ++i) same_rows = passes[i].pass == passes_[i].pass;
  if (!same_rows) beginResetModel();
  passes_ = std::move(passes);
  if (!same_rows) endResetModel();
  else if (!passes_.empty()) emit dataChanged(index(0), index(rowCount() - 1));
}

const PassSnapshot* PassListModel::pass(int row) const {
  return row >= 0 && row < rowCount() ? &passes_[size_t(row)] : nullptr;
}

// The first pass always counts as a change: it is where the schedule comes from.
bool PassListModel::changed(int row) const {
  if (row <= 0) return row == 0 && !passes_.empty();
  return passes_[size_t(row)].isl_schedule != passes_[size_t(row) - 1].isl_schedule;
}

int PassListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(passes_.size()); }

QVariant PassListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const PassSnapshot& p = passes_[size_t(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return QStringLiteral("%1  %2  (%3 ms)")
          .arg(index.row() + 1)
          .arg(QString::fromStdString(p.pass))
          .arg(p.milliseconds, 0, 'f', 2);
    case Qt::ToolTipRole:
      return changed(index.row()) ? tr("%1 changed the schedule").arg(QString::fromStdString(p.pass))
                                  : tr("%1 left the schedule unchanged").arg(QString::fromStdString(p.pass));
    case Qt::FontRole: {
      QFont f;
      f.setBold(changed(index.row()));
      return f;
    }
    case ChangedRole: return changed(index.row());
    case MillisecondsRole: return p.milliseconds;
    case PassIndexRole: return index.row();
  }
  return {};
}

ChangedPassFilter::ChangedPassFilter(QObject* parent) : QSortFilterProxyModel(parent) {}

void ChangedPassFilter::set_changed_only(bool on) {
  if (on == changed_only_) return;
  changed_only_ = on;
  invalidateRowsFilter();
}

bool ChangedPassFilter::filterAcceptsRow(int row, const QModelIndex& parent) const {
  if (!changed_only_) return true;
  return sourceModel()->index(row, 0, parent).data(PassListModel::ChangedRole).toBool();
}

}  // namespace tcs
