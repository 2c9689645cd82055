#pragma once
// The main window: the editor in the middle, the Problems list below it. Each edit
// re-checks the source (the front end takes well under a millisecond per kernel; the
// background compile service arrives with the code views).
#include <QMainWindow>

class QLabel;
class QTableView;

namespace tcs {

class DiagnosticsModel;
class SourceEditor;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  bool open_file(const QString& path);
  void set_source(const QString& name, const QString& text);

  SourceEditor* editor() const { return editor_; }
  DiagnosticsModel* diagnostics() const { return model_; }
  QTableView* problems_view() const { return problems_; }

 private:
  void recheck();
  void open_dialog();
  void jump_to_problem(const QModelIndex& index);

  SourceEditor* editor_;
  DiagnosticsModel* model_;
  QTableView* problems_;
  QLabel* status_;
  QString name_;
};

}  // namespace tcs
