#pragma once
// The schedule tree as a tree: isl's node kinds (domain, band, sequence, set, filter,
// mark, context, extension, leaf) with a row per band member carrying badges: coincident,
// permutable, parallel, tile size, vectorised, unrolled, packed below, and the dependence
// kinds it carries. Selecting a row says which loop and statements it stands for; the
// window lights them up elsewhere and asks the tree to follow the other way.
#include <QTreeWidget>

#include <map>
#include <string>
#include <vector>

#include "codegen/GeneratedText.h"
#include "loopnest/LoopNest.h"
#include "poly/IterationSpace.h"
#include "poly/ScheduleTree.h"

namespace tcs {

class ScheduleTreeView : public QTreeWidget {
  Q_OBJECT
 public:
  enum Role { LoopIdRole = Qt::UserRole + 1, StatementsRole, NestStmtRole };
  explicit ScheduleTreeView(QWidget* parent = nullptr);

  // The tree after the last pass, and the loop nest the code panes were made from.
  void show_tree(const ScheduleNode& root, const LoopNest& nest);
  // Adds "carries ..." badges from an iteration space (its loop ids are the tree's).
  void set_carried(const std::map<int, std::vector<DependenceKind>>& carried);
  void clear_tree();

  // Selects the row of a loop id, or the deepest row running exactly this statement.
  bool select_loop(int loop_id);
  bool select_statement(const std::string& name);
  // The badges of a loop's row ("parallel", "tile 32", ...), for tests.
  QStringList badges(int loop_id) const;

 signals:
  // The user selected a row: what code lines it stands for, and the statements below it.
  void node_selected(const LineOrigin& origin, const QStringList& statements);

 private:
  QTreeWidgetItem* add(QTreeWidgetItem* parent, const ScheduleNode& n, const LoopNest& nest, bool packed_above);
  QTreeWidgetItem* find(const std::function<bool(QTreeWidgetItem*)>& pred) const;
  void select_quietly(QTreeWidgetItem* item);

  std::map<int, QTreeWidgetItem*> loop_rows_;
  std::map<int, QStringList> base_badges_;
  bool quiet_ = false;
};

}  // namespace tcs
