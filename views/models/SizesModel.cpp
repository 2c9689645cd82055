#include "views/models/SizesModel.h"

namespace tcs {

SizesModel::SizesModel(QObject* parent) : QAbstractTableModel(parent) {}

void SizesModel::set_parameters(const std::vector<std::string>& names, const SizeMap& header, const SizeMap& used) {
  if (names != names_) {
    beginResetModel();
    names_ = names;
    header_ = header;
    used_ = used;
    endResetModel();
    return;
  }
  header_ = header;
  used_ = used;
  if (!names_.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void SizesModel::clear_overrides() {
  if (overrides_.empty()) return;
  overrides_.clear();
  if (!names_.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
  emit overrides_changed();
}

int SizesModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(names_.size()); }

int SizesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SizesModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const std::string& name = names_[size_t(index.row())];
  auto value = [&]() -> QVariant {
    for (const SizeMap* m : {&overrides_, &used_, &header_})
      if (auto it = m->find(name); it != m->end()) return QVariant::fromValue<qlonglong>(it->second);
    return {};
  };
  if (role == Qt::DisplayRole || role == Qt::EditRole) {
    switch (index.column()) {
      case NameColumn: return QString::fromStdString(name);
      case ValueColumn: return value();
      case SourceColumn:
        if (overrides_.count(name)) return tr("edited");
        if (header_.count(name)) return tr("# sizes");
        return used_.count(name) ? tr("inferred") : tr("missing");
    }
  }
  if (role == Qt::ToolTipRole && index.column() == ValueColumn)
    return tr("Double-click to change %1; Build ▸ Reset Sizes returns to the file's header").arg(QString::fromStdString(name));
  if (role == Qt::TextAlignmentRole && index.column() == ValueColumn)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant SizesModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case NameColumn: return tr("Size");
    case ValueColumn: return tr("Value");
    case SourceColumn: return tr("From");
  }
  return {};
}

Qt::ItemFlags SizesModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
  if (index.column() == ValueColumn) f |= Qt::ItemIsEditable;
  return f;
}

bool SizesModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || role != Qt::EditRole || index.column() != ValueColumn || index.row() >= rowCount()) return false;
  bool ok = false;
  qlonglong v = value.toLongLong(&ok);
  if (!ok || v < 1) return false;  // sizes are positive; the view keeps the old value
  overrides_[names_[size_t(index.row())]] = v;
  emit dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
  emit overrides_changed();
  return true;
}

}  // namespace tcs
