#pragma once
// The size parameters of the selected def with the values the compiler uses: the file's
// "# sizes:" header gives the defaults, an edited value overrides it until reset.
#include <QAbstractTableModel>
#include <string>
#include <vector>

#include "lang/SymExpr.h"

namespace tcs {

class SizesModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { NameColumn, ValueColumn, SourceColumn, ColumnCount };

  explicit SizesModel(QObject* parent = nullptr);

  // The parameters in order, the file's header values, and the values last compiled with.
  void set_parameters(const std::vector<std::string>& names, const SizeMap& header, const SizeMap& used);
  const SizeMap& overrides() const { return overrides_; }
  void clear_overrides();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

 signals:
  void overrides_changed();

 private:
  std::vector<std::string> names_;
  SizeMap header_, used_, overrides_;
};

}  // namespace tcs
