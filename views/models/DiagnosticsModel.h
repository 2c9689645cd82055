#pragma once
// A table of diagnostics (severity, line, column, message) for the Problems view. It owns
// a copy of the plain Diagnostic list and of the line starts it needs, nothing more.
#include <QAbstractTableModel>
#include <vector>

#include "lang/Diagnostic.h"

namespace tcs {

class DiagnosticsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { SeverityColumn, LineColumnColumn, MessageColumn, ColumnCount };
  enum Role { RangeBeginRole = Qt::UserRole + 1, RangeEndRole };

  explicit DiagnosticsModel(QObject* parent = nullptr);

  void set_diagnostics(const SourceFile& file, std::vector<Diagnostic> diagnostics);
  const Diagnostic& diagnostic(int row) const { return diags_[size_t(row)]; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::vector<Diagnostic> diags_;
  std::vector<LineColumn> positions_;
};

}  // namespace tcs
