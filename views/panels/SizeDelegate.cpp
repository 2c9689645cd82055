#include "views/panels/SizeDelegate.h"

#include <QKeyEvent>
#include <QLineEdit>
#include <QValidator>

#include "lang/Shapes.h"

namespace tcs {

namespace {

// Digits only; a number above kMaxSize cannot be typed; 0 and an empty field may be
// passed through on the way to a valid number but are not committed.
class SizeValidator : public QValidator {
 public:
  using QValidator::QValidator;
  State validate(QString& input, int&) const override {
    if (input.isEmpty()) return Intermediate;
    for (QChar c : input)
      if (!c.isDigit()) return Invalid;
    bool ok = false;
    qulonglong v = input.toULongLong(&ok);
    if (!ok || v > qulonglong(kMaxSize)) return Invalid;
    return v == 0 ? Intermediate : Acceptable;
  }
};

QString allowed() { return QObject::tr("a size is a whole number from 1 to %1").arg(kMaxSize); }

const char* kIndexProperty = "sizeIndex";

}  // namespace

QWidget* SizeDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem&, const QModelIndex& index) const {
  auto* edit = new QLineEdit(parent);
  edit->setObjectName(QStringLiteral("sizeEditor"));
  edit->setValidator(new SizeValidator(edit));
  edit->setAlignment(Qt::AlignRight);
  edit->setProperty(kIndexProperty, QVariant::fromValue(QPersistentModelIndex(index)));
  QString name = index.siblingAtColumn(0).data().toString();
  connect(edit, &QLineEdit::inputRejected, this, [this, name] { emit problem(tr("%1: %2").arg(name, allowed())); });
  emit problem({});
  return edit;
}

void SizeDelegate::setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const {
  auto* edit = qobject_cast<QLineEdit*>(editor);
  if (!edit->hasAcceptableInput()) {
    refuse(index);
    return;
  }
  model->setData(index, edit->text().toLongLong(), Qt::EditRole);
  emit problem({});
}

void SizeDelegate::refuse(const QModelIndex& index) const {
  emit problem(tr("%1 stays %2: %3").arg(index.siblingAtColumn(0).data().toString(), index.data().toString(), allowed()));
}

bool SizeDelegate::eventFilter(QObject* object, QEvent* event) {
  auto* edit = qobject_cast<QLineEdit*>(object);
  if (edit && !edit->hasAcceptableInput()) {
    auto index = edit->property(kIndexProperty).value<QPersistentModelIndex>();
    if (event->type() == QEvent::KeyPress) {
      int key = static_cast<QKeyEvent*>(event)->key();
      if (key == Qt::Key_Return || key == Qt::Key_Enter) {
        refuse(index);
        return true;
      }
      if (key == Qt::Key_Tab || key == Qt::Key_Backtab) refuse(index);  // leaving: the old value stays, said
    } else if (event->type() == QEvent::FocusOut) {
      refuse(index);
    }
  }
  return QStyledItemDelegate::eventFilter(object, event);
}

}  // namespace tcs
