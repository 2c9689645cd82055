// Rows come from the plain ScheduleNode of the last pass; band members become child rows
// so each loop can be selected on its own, as the code panes' lines are.
#include "views/explorers/ScheduleTreeView.h"

#include <QHeaderView>

namespace tcs {

namespace {

// "{ S0[m, n, k] -> [(floor((m)/8))] }" -> "floor((m)/8)": the first piece's expression.
QString member_expression(const std::string& schedule) {
  size_t a = schedule.find("-> [");
  if (a == std::string::npos) return QString::fromStdString(schedule);
  size_t b = schedule.find(']', a);
  std::string e = schedule.substr(a + 4, b == std::string::npos ? std::string::npos : b - a - 4);
  if (e.size() > 2 && e.front() == '(' && e.back() == ')') e = e.substr(1, e.size() - 2);
  return QString::fromStdString(e);
}

QStringList statement_names(const ScheduleNode& n) {
  QStringList r;
  for (const std::string& s : n.statements) r << QString::fromStdString(s);
  return r;
}

}  // namespace

ScheduleTreeView::ScheduleTreeView(QWidget* parent) : QTreeWidget(parent) {
  setObjectName(QStringLiteral("scheduleTree"));
  setColumnCount(3);
  setHeaderLabels({tr("Node"), tr("Badges"), tr("Statements")});
  header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  setUniformRowHeights(true);
  connect(this, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    if (quiet_ || !item) return;
    LineOrigin o;
    o.loop_id = item->data(0, LoopIdRole).toInt();
    o.stmt = item->data(0, NestStmtRole).toInt();
    emit node_selected(o, item->data(0, StatementsRole).toStringList());
  });
}

void ScheduleTreeView::clear_tree() {
  clear();
  loop_rows_.clear();
  base_badges_.clear();
}

void ScheduleTreeView::show_tree(const ScheduleNode& root, const LoopNest& nest) {
  quiet_ = true;
  clear_tree();
  add(nullptr, root, nest, false);
  expandAll();
  quiet_ = false;
}

QTreeWidgetItem* ScheduleTreeView::add(QTreeWidgetItem* parent, const ScheduleNode& n, const LoopNest& nest, bool packed_above) {
  using K = ScheduleNode::Kind;
  auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(this);
  QStringList stmts = statement_names(n);
  QString title = QString::fromUtf8(schedule_node_kind_name(n.kind).data(), int(schedule_node_kind_name(n.kind).size()));
  QStringList badges;
  if (n.kind == K::Band) {
    title += QStringLiteral(" (%1)").arg(QString::fromUtf8(loop_role_name(n.role).data(), int(loop_role_name(n.role).size())));
    if (n.permutable) badges << tr("permutable");
    if (packed_above) badges << tr("packed");
  } else if (n.kind == K::Mark) {
    title += QStringLiteral(" ") + QString::fromStdString(n.text);
  } else if (n.kind == K::Filter || n.kind == K::Domain || n.kind == K::Context) {
    item->setToolTip(0, QString::fromStdString(n.text));
  }
  item->setText(0, title);
  item->setText(1, badges.join(QStringLiteral(" · ")));
  item->setText(2, stmts.join(QStringLiteral(", ")));
  item->setData(0, LoopIdRole, -1);
  item->setData(0, StatementsRole, stmts);
  // A node that runs one statement stands for its lines, as in the schedule text pane.
  int nest_stmt = -1;
  if (n.statements.size() == 1)
    for (size_t s = 0; s < nest.stmts.size(); ++s)
      if (nest.stmts[s].name == n.statements[0]) nest_stmt = int(s);
  item->setData(0, NestStmtRole, nest_stmt);
  for (size_t i = 0; i < n.members.size(); ++i) {
    const BandMember& m = n.members[i];
    auto* row = new QTreeWidgetItem(item);
    row->setText(0, QStringLiteral("L%1  %2").arg(m.loop_id).arg(member_expression(m.schedule)));
    row->setToolTip(0, QString::fromStdString(m.schedule));
    QStringList b;
    if (m.coincident) b << tr("coincident");
    if (m.parallel) b << tr("parallel");
    if (i < n.tile_sizes.size() && n.tile_sizes[i] > 0) b << tr("tile %1").arg(n.tile_sizes[i]);
    if (m.vector_width > 0) b << tr("vector %1").arg(m.vector_width);
    if (m.unroll < 0) b << tr("unrolled");
    else if (m.unroll > 1) b << tr("unroll %1").arg(m.unroll);
    row->setText(1, b.join(QStringLiteral(" · ")));
    row->setText(2, stmts.join(QStringLiteral(", ")));
    row->setData(0, LoopIdRole, m.loop_id);
    row->setData(0, StatementsRole, stmts);
    row->setData(0, NestStmtRole, nest_stmt);
    if (m.loop_id >= 0) {
      loop_rows_[m.loop_id] = row;
      base_badges_[m.loop_id] = b;
    }
  }
  for (const ScheduleNode& c : n.children) add(item, c, nest, n.kind == K::Mark && n.text.rfind("pack", 0) == 0);
  return item;
}

void ScheduleTreeView::set_carried(const std::map<int, std::vector<DependenceKind>>& carried) {
  for (auto& [id, row] : loop_rows_) {
    QStringList b = base_badges_[id];
    if (auto it = carried.find(id); it != carried.end()) {
      QStringList kinds;
      for (DependenceKind k : it->second) kinds << QString::fromUtf8(dependence_kind_name(k).data(), int(dependence_kind_name(k).size()));
      b << tr("carries %1").arg(kinds.join(QStringLiteral(", ")));
    }
    row->setText(1, b.join(QStringLiteral(" · ")));
  }
}

QStringList ScheduleTreeView::badges(int loop_id) const {
  auto it = loop_rows_.find(loop_id);
  return it == loop_rows_.end() ? QStringList() : it->second->text(1).split(QStringLiteral(" · "), Qt::SkipEmptyParts);
}

QTreeWidgetItem* ScheduleTreeView::find(const std::function<bool(QTreeWidgetItem*)>& pred) const {
  QTreeWidgetItem* found = nullptr;
  std::function<void(QTreeWidgetItem*)> walk = [&](QTreeWidgetItem* it) {
    if (pred(it)) found = it;  // the last in preorder: the deepest
    for (int i = 0; i < it->childCount(); ++i) walk(it->child(i));
  };
  for (int i = 0; i < topLevelItemCount(); ++i) walk(topLevelItem(i));
  return found;
}

void ScheduleTreeView::select_quietly(QTreeWidgetItem* item) {
  quiet_ = true;
  setCurrentItem(item);
  if (item) scrollToItem(item);
  quiet_ = false;
}

bool ScheduleTreeView::select_loop(int loop_id) {
  auto it = loop_rows_.find(loop_id);
  if (it == loop_rows_.end()) return false;
  select_quietly(it->second);
  return true;
}

bool ScheduleTreeView::select_statement(const std::string& name) {
  QString n = QString::fromStdString(name);
  QTreeWidgetItem* item = find([&](QTreeWidgetItem* it) {
    QStringList s = it->data(0, StatementsRole).toStringList();
    return s.size() == 1 && s[0] == n && it->data(0, LoopIdRole).toInt() < 0;
  });
  if (!item) return false;
  select_quietly(item);
  return true;
}

}  // namespace tcs
