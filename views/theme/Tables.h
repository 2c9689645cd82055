#pragma once
// How every table of the IDE looks: whole rows selected, no row numbers, the last column
// stretched, no word wrap.
#include <QHeaderView>
#include <QTableView>

namespace tcs {

inline QTableView* make_table(QWidget* parent, const QString& object_name) {
  auto* t = new QTableView(parent);
  t->setObjectName(object_name);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->verticalHeader()->hide();
  t->horizontalHeader()->setStretchLastSection(true);
  t->setWordWrap(false);
  return t;
}

}  // namespace tcs
