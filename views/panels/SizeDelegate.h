#pragma once
// Editing a size in the Sizes table: only a whole number from 1 to kMaxSize can be typed
// or committed. A refused keystroke or commit is said through problem(), never silently
// reverted.
#include <QStyledItemDelegate>

namespace tcs {

class SizeDelegate : public QStyledItemDelegate {
  Q_OBJECT

  void refuse(const QModelIndex& index) const;
 public:
  using QStyledItemDelegate::QStyledItemDelegate;

  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
  void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override;

 protected:
  // Enter, Tab or leaving the field with a value that cannot be taken says why (Qt would
  // ignore or drop it without a word).
  bool eventFilter(QObject* object, QEvent* event) override;

 signals:
  // Why a keystroke or a value was refused (empty: the value was taken).
  void problem(const QString& message) const;
};

}  // namespace tcs
