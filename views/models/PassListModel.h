#pragma once
// The compiler's passes in pipeline order, each with its time and whether it changed the
// schedule; the changed-only proxy hides the passes that left it as it was.
#include <QAbstractListModel>
#include <QSortFilterProxyModel>
#include <vector>

#include "poly/ScheduleTree.h"

namespace tcs {

class PassListModel : public QAbstractListModel {
  Q_OBJECT
 public:
  enum Role { ChangedRole = Qt::UserRole + 1, MillisecondsRole, PassIndexRole };

  explicit PassListModel(QObject* parent = nullptr);

  void set_passes(std::vector<PassSnapshot> passes);
  const std::vector<PassSnapshot>& passes() const { return passes_; }
  const PassSnapshot* pass(int row) const;
  bool changed(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 private:
  std::vector<PassSnapshot> passes_;
};

class ChangedPassFilter : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit ChangedPassFilter(QObject* parent = nullptr);
  void set_changed_only(bool on);
  bool changed_only() const { return changed_only_; }

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

 private:
  bool changed_only_ = false;
};

}  // namespace tcs
