#pragma once
// The IDE's window: the comprehension editor in the middle; docks for problems, the code
// panes (C, LLVM IR, assembly, schedule tree), the kernel's entry, sizes and options, the
// pass list, the diff of two option sets and the run report. Every edit goes to the
// compile service (debounced); results come back as plain data. Every dock (Kernel, code,
// Passes, Diff, Run) follows the service itself; the window assembles docks and actions,
// shows diagnostics in the editor and Problems, keeps the status bar current, and links
// the editor to the code panes.
#include <QMainWindow>
#include <QPointer>
#include <vector>
#include <memory>

#include "export/Export.h"
#include "options/MappingOptions.h"
#include "views/code/CodeLinks.h"

class QComboBox;
class QDockWidget;
class QLabel;
class QListView;
class QPlainTextEdit;
class QTabWidget;
class QTableView;
class QTimer;

namespace tcs {

class ChangedPassFilter;
struct CompileJob;
class CodePanel;
class CodeView;
class CompileService;
class DiagnosticsModel;
class DiffPanel;
class DocumentOptions;
class DomainView;
class FusionView;
class TilingView;
class ScheduleTreeView;
class SpaceService;
class FindBar;
class KernelPanel;
class OptionsPanel;
class PassListModel;
class PassPanel;
class RunPanel;
class SizesModel;
class SourceEditor;
struct CompileOutcome;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  enum Pane { CPane, LlvmPane, AsmPane, SchedulePane, PaneCount };

  explicit MainWindow(QString examples_dir = {}, QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens `path`, or refuses it (binary, not UTF-8, too large) saying why: in a message box,
  // or in `problem` when given (a file named on the command line).
  bool open_file(const QString& path, QString* problem = nullptr);
  void set_source(const QString& name, const QString& text);
  bool save_to(const QString& path);
  // Exports the kernel as the panels describe it (entry, sizes, options) into `dir`, the
  // same bundle as `tcstudio-cli export`; returns an empty string or what went wrong.
  QString export_to(const QString& dir, ExportSettings settings = {});
  void compile_now();
  void run_with_check();
  void set_dark(bool dark);
  // Code panes side by side: the panes of each column (Pane values), left to right.
  void set_code_columns(const std::vector<std::vector<int>>& columns);

  SourceEditor* editor() const { return editor_; }
  DiagnosticsModel* diagnostics() const { return model_; }
  QTableView* problems_view() const { return problems_; }
  CodeView* code_view(Pane p) const;
  CodeView* pass_tree_view() const;
  SizesModel* sizes() const;
  PassListModel* passes() const;
  ChangedPassFilter* pass_filter() const;
  QListView* pass_list() const;
  OptionsPanel* options() const;
  DiffPanel* diff() const { return diff_; }
  QComboBox* entry_box() const;
  QPlainTextEdit* run_report() const;
  RunPanel* run_panel() const { return run_report_; }
  CodePanel* code_panel() const { return code_; }
  FindBar* find_bar() const { return find_bar_; }
  CompileService* service() const { return service_; }
  ScheduleTreeView* schedule_tree() const { return schedule_tree_; }
  DomainView* domain_view() const { return domain_; }
  QDockWidget* domain_dock() const { return domain_dock_; }
  SpaceService* space_service() const { return space_; }
  FusionView* fusion_view() const { return fusion_; }
  QDockWidget* fusion_dock() const { return fusion_dock_; }
  TilingView* tiling_view() const { return tiling_; }
  QDockWidget* tiling_dock() const { return tiling_dock_; }
  // A change of options made in a view (the fusion or tiling explorer): shown in the options
  // panel, saved in the document as one undoable edit, compiled.
  void apply_options(const MappingOptions& options);
  // The newest result shown (null before the first one).
  const CompileOutcome* outcome() const { return outcome_.get(); }
  // True once the newest submitted job has delivered its final result.
  bool idle() const;
  QString status_text() const;

 signals:
  void outcome_shown(bool final);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  void build_docks();
  void build_menus();
  void schedule_compile();
  void submit(bool run);
  void show_outcome(std::shared_ptr<const CompileOutcome> outcome);
  void link_from_editor();
  void link_from_line(const LineOrigin& origin);
  void mark_statements(const std::set<int>& source_stmts);
  void link_from_point(const std::string& statement, int source_stmt);
  // Computes the iteration space of the shown kernel when the domain view is open (again
  // with `always`, after its view sizes or what-if schedule changed).
  void submit_space(bool always);
  bool outcome_matches_editor() const;
  // The explorers that follow the shown kernel while their docks are open.
  void explore_outcome();
  void jump_to_problem(const QModelIndex& index);
  void new_file();
  void open_dialog();
  bool save();
  bool save_as();
  void export_dialog();
  CompileJob current_job(bool run) const;
  bool maybe_save();
  void add_recent(const QString& path);
  void rebuild_recent_menu();
  void show_reference();
  void release_shortcuts();
  void keep_editor_half();
  void update_title();
  void restore_settings();
  void save_settings();

  QString examples_dir_;
  QString path_;  // empty: untitled
  SourceEditor* editor_;
  FindBar* find_bar_;
  DiagnosticsModel* model_;
  QTableView* problems_;
  CompileService* service_;
  QTimer* debounce_;
  KernelPanel* kernel_;
  CodePanel* code_;
  PassPanel* passes_;
  DiffPanel* diff_;
  RunPanel* run_report_;
  ScheduleTreeView* schedule_tree_;
  DomainView* domain_;
  QDockWidget* domain_dock_;
  SpaceService* space_;
  FusionView* fusion_;
  QDockWidget* fusion_dock_;
  TilingView* tiling_;
  QDockWidget* tiling_dock_;
  DocumentOptions* document_options_;
  std::shared_ptr<const CompileOutcome> space_outcome_;  // the outcome the space was asked for
  uint64_t tree_id_ = 0;                                 // the outcome the schedule tree shows
  QLabel* problems_label_;
  QLabel* timings_label_;
  QMenu* recent_menu_ = nullptr;
  QMenu* view_menu_ = nullptr;
  QAction* dark_action_ = nullptr;
  std::shared_ptr<const CompileOutcome> outcome_;
  std::vector<QPointer<QDockWidget>> collapsed_;  // left docks tabbed right on a small window
  bool linking_ = false;
  bool edits_pending_ = false;  // edits made since the last submitted job
};

}  // namespace tcs
