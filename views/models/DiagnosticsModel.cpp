#include "views/models/DiagnosticsModel.h"

#include <QApplication>
#include <QStyle>

namespace tcs {

DiagnosticsModel::DiagnosticsModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiagnosticsModel::set_diagnostics(const SourceFile& file, std::vector<Diagnostic> diagnostics) {
  beginResetModel();
  diags_ = std::move(diagnostics);
  positions_.clear();
  for (const Diagnostic& d : diags_) positions_.push_back(file.line_column(d.range.begin));
  endResetModel();
}

int DiagnosticsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(diags_.size());
}

int DiagnosticsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DiagnosticsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= int(diags_.size())) return {};
  const Diagnostic& d = diags_[size_t(index.row())];
  const LineColumn& lc = positions_[size_t(index.row())];
  if (role == RangeBeginRole) return qint64(d.range.begin);
  if (role == RangeEndRole) return qint64(d.range.end);
  if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
    switch (index.column()) {
      case SeverityColumn: return QString::fromUtf8(severity_name(d.severity).data());
      case LineColumnColumn: return QStringLiteral("%1:%2").arg(lc.line).arg(lc.column);
      case MessageColumn: return QString::fromStdString(d.message);
    }
  }
  if (role == Qt::DecorationRole && index.column() == SeverityColumn) {
    QStyle* style = QApplication::style();
    if (!style) return {};
    return style->standardIcon(d.severity == Severity::Error     ? QStyle::SP_MessageBoxCritical
                               : d.severity == Severity::Warning ? QStyle::SP_MessageBoxWarning
                                                                 : QStyle::SP_MessageBoxInformation);
  }
  return {};
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case SeverityColumn: return tr("Severity");
    case LineColumnColumn: return tr("Line:Col");
    case MessageColumn: return tr("Message");
  }
  return {};
}

}  // namespace tcs
