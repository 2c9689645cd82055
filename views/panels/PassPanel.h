#pragma once
// The Passes dock: one row per pass of the pipeline (optionally only those that changed
// the schedule) and the schedule tree after the selected pass. It follows the compile
// service itself; the tree is filled only while the dock is visible.
#include <QWidget>
#include <memory>

class QListView;

namespace tcs {

class ChangedPassFilter;
class CodeView;
class CompileService;
class PassListModel;
struct CompileOutcome;

class PassPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PassPanel(QWidget* parent = nullptr);
  void follow(CompileService* service);
  // Shows the tree after the selected pass (when the dock becomes visible, say).
  void show_selected();

  PassListModel* model() const { return model_; }
  ChangedPassFilter* filter() const { return filter_; }
  QListView* list() const { return list_; }
  CodeView* tree() const { return tree_; }

 private:
  void show_outcome(std::shared_ptr<const CompileOutcome> o);

  PassListModel* model_;
  ChangedPassFilter* filter_;
  QListView* list_;
  CodeView* tree_;
  std::shared_ptr<const CompileOutcome> outcome_;
};

}  // namespace tcs
