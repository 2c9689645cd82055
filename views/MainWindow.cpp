#include "views/MainWindow.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QListView>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>
#include <Qsci/qscicommand.h>
#include <Qsci/qscicommandset.h>
#include <functional>

#include "views/code/CodePanel.h"
#include "views/code/CodeView.h"
#include "views/dialogs/ExportDialog.h"
#include "views/service/CompileService.h"
#include "views/models/DiagnosticsModel.h"
#include "views/panels/DiffPanel.h"
#include "views/editor/FindBar.h"
#include "views/panels/KernelPanel.h"
#include "views/panels/OptionsPanel.h"
#include "views/panels/PassPanel.h"
#include "views/panels/RunPanel.h"
#include "views/models/PassListModel.h"
#include "views/models/SizesModel.h"
#include "export/Export.h"
#include "views/editor/SourceEditor.h"
#include "views/editor/SymbolIndex.h"
#include "views/editor/SavedOptions.h"
#include "views/explorers/DomainView.h"
#include "views/explorers/FusionView.h"
#include "views/explorers/TilingView.h"
#include "views/explorers/ScheduleTreeView.h"
#include "views/explorers/SpaceService.h"
#include "views/theme/Tables.h"
#include "views/theme/Theme.h"

namespace tcs {

namespace {

// Edits closer together than this are coalesced into one compile; the first edit after
// a quiet spell compiles at once (the newest job cancels an older one anyway).
constexpr int kDebounceMs = 30;

QDockWidget* make_dock(QMainWindow* w, const QString& title, const QString& name, QWidget* content) {
  auto* dock = new QDockWidget(title, w);
  dock->setObjectName(name);
  dock->setWidget(content);
  return dock;
}

// A dock behind another's tab still says isVisible(), so only its visibilityChanged
// signals tell whether anyone can see it, and whether its background work is worth doing.
constexpr char kOnScreen[] = "tcsOnScreen";
void track_on_screen(QDockWidget* dock) {
  QObject::connect(dock, &QDockWidget::visibilityChanged, dock, [dock](bool visible) { dock->setProperty(kOnScreen, visible); });
}
bool on_screen(const QDockWidget* dock) { return dock->property(kOnScreen).toBool(); }

// Wide content (a spin box per loop, three cards side by side) scrolls inside its dock
// instead of widening the dock beyond what the editor can spare.
QScrollArea* scrolled(QWidget* content) {
  auto* area = new QScrollArea;
  area->setWidget(content);
  area->setWidgetResizable(true);
  area->setFrameShape(QFrame::NoFrame);
  return area;
}

}  // namespace

}  // namespace tcs

// The views library is static: its resources (the language reference) are registered
// only when someone asks. Q_INIT_RESOURCE must be called outside any namespace.
static void register_views_resources() { Q_INIT_RESOURCE(reference); }

namespace tcs {

MainWindow::MainWindow(QString examples_dir, QWidget* parent)
    : QMainWindow(parent), examples_dir_(std::move(examples_dir)) {
  register_views_resources();
  editor_ = new SourceEditor(this);
  find_bar_ = new FindBar(editor_, this);
  auto* center = new QWidget(this);
  auto* layout = new QVBoxLayout(center);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(editor_, 1);
  layout->addWidget(find_bar_);
  setCentralWidget(center);

  service_ = new CompileService(this);
  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(kDebounceMs);
  connect(debounce_, &QTimer::timeout, this, [this] {
    if (!edits_pending_) return;
    edits_pending_ = false;
    submit(false);
  });
  connect(service_, &CompileService::compiled, this, &MainWindow::show_outcome);

  build_docks();
  build_menus();
  release_shortcuts();

  problems_label_ = new QLabel(this);
  timings_label_ = new QLabel(this);
  statusBar()->addWidget(timings_label_, 1);
  statusBar()->addPermanentWidget(problems_label_);

  // Find follows the focus: the editor or whichever code pane the user was reading.
  connect(qApp, &QApplication::focusChanged, this, [this](QWidget*, QWidget* now) {
    for (QWidget* w = now; w; w = w->parentWidget())
      if (auto* text = qobject_cast<QsciScintilla*>(w)) {
        if (w->window() == this) find_bar_->set_target(text);
        return;
      }
  });
  connect(editor_, &QsciScintilla::modificationChanged, this, &MainWindow::update_title);
  connect(editor_, &QsciScintilla::cursorPositionChanged, this, &MainWindow::link_from_editor);
  resize(1400, 860);
  restore_settings();
  update_title();
}

MainWindow::~MainWindow() = default;

void MainWindow::build_docks() {
  model_ = new DiagnosticsModel(this);
  problems_ = make_table(this, QStringLiteral("problems"));
  problems_->setModel(model_);
  problems_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  connect(problems_, &QAbstractItemView::activated, this, &MainWindow::jump_to_problem);
  connect(problems_, &QAbstractItemView::clicked, this, &MainWindow::jump_to_problem);
  QDockWidget* problems_dock = make_dock(this, tr("Problems"), QStringLiteral("problemsDock"), problems_);

  kernel_ = new KernelPanel(this);
  kernel_->follow(service_);
  connect(kernel_, &KernelPanel::changed, this, &MainWindow::schedule_compile);
  // Edits of the text and of the options both reach the compiler through the document.
  document_options_ = new DocumentOptions(editor_, kernel_->options(), kernel_->entry(), this);
  connect(document_options_, &DocumentOptions::compile, this, &MainWindow::schedule_compile);
  QDockWidget* kernel_dock = make_dock(this, tr("Kernel"), QStringLiteral("kernelDock"), kernel_);

  // Code panes.
  code_ = new CodePanel(this);
  code_->follow(service_);
  connect(code_, &CodePanel::line_selected, this, &MainWindow::link_from_line);
  connect(code_, &CodePanel::code_shown, this, &MainWindow::link_from_editor);
  QDockWidget* code_dock = make_dock(this, tr("Generated code"), QStringLiteral("codeDock"), code_);

  // Docks that follow the compile service themselves.
  passes_ = new PassPanel(this);
  passes_->follow(service_);
  connect(passes_->tree(), &CodeView::line_selected, this, &MainWindow::link_from_line);
  QDockWidget* pass_dock = make_dock(this, tr("Passes"), QStringLiteral("passDock"), passes_);
  connect(pass_dock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    if (visible) passes_->show_selected();
  });

  diff_ = new DiffPanel(this);
  diff_->follow(service_);
  QDockWidget* diff_dock = make_dock(this, tr("Diff"), QStringLiteral("diffDock"), diff_);

  run_report_ = new RunPanel(this);
  run_report_->follow(service_);
  QDockWidget* run_dock = make_dock(this, tr("Run"), QStringLiteral("runDock"), run_report_);

  // The explorers: the schedule tree, and the iteration space computed off the GUI thread
  // while its dock is open.
  schedule_tree_ = new ScheduleTreeView(this);
  connect(schedule_tree_, &ScheduleTreeView::node_selected, this, [this](const LineOrigin& origin, const QStringList& stmts) {
    link_from_line(origin);
    if (!stmts.isEmpty()) domain_->highlight_statement(stmts.front().toStdString());
  });
  QDockWidget* tree_dock = make_dock(this, tr("Schedule tree"), QStringLiteral("scheduleTreeDock"), schedule_tree_);
  space_ = new SpaceService(this);
  domain_ = new DomainView(this);
  connect(domain_, &DomainView::request_changed, this, [this] { submit_space(true); });
  connect(domain_, &DomainView::point_clicked, this, &MainWindow::link_from_point);
  connect(space_, &SpaceService::ready, this, [this](std::shared_ptr<const SpaceResult> r) {
    domain_->show_result(r);
    if (r->space && outcome_ && r->outcome->id == outcome_->id) schedule_tree_->set_carried(r->space->carried);
  });
  domain_dock_ = make_dock(this, tr("Iteration space"), QStringLiteral("domainDock"), domain_);
  track_on_screen(domain_dock_);
  connect(domain_dock_, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    if (visible) submit_space(false);
  });

  // Fusion and tiling: each change they make is a change of options, applied like the panel's.
  fusion_ = new FusionView(this);
  connect(fusion_, &FusionView::adopt, document_options_, &DocumentOptions::apply);
  fusion_dock_ = make_dock(this, tr("Fusion"), QStringLiteral("fusionDock"), scrolled(fusion_));
  tiling_ = new TilingView(this);
  connect(tiling_, &TilingView::options_chosen, document_options_, &DocumentOptions::apply);
  tiling_dock_ = make_dock(this, tr("Tiling"), QStringLiteral("tilingDock"), tiling_);
  for (QDockWidget* d : {fusion_dock_, tiling_dock_}) {
    track_on_screen(d);
    connect(d, &QDockWidget::visibilityChanged, this, [this](bool visible) {
      if (visible) explore_outcome();
    });
  }

  addDockWidget(Qt::LeftDockWidgetArea, kernel_dock);
  addDockWidget(Qt::LeftDockWidgetArea, pass_dock);
  tabifyDockWidget(kernel_dock, pass_dock);
  addDockWidget(Qt::LeftDockWidgetArea, tree_dock);
  tabifyDockWidget(pass_dock, tree_dock);
  kernel_dock->raise();
  addDockWidget(Qt::RightDockWidgetArea, code_dock);
  addDockWidget(Qt::RightDockWidgetArea, domain_dock_);
  tabifyDockWidget(code_dock, domain_dock_);
  addDockWidget(Qt::RightDockWidgetArea, fusion_dock_);
  tabifyDockWidget(domain_dock_, fusion_dock_);
  addDockWidget(Qt::RightDockWidgetArea, tiling_dock_);
  tabifyDockWidget(fusion_dock_, tiling_dock_);
  code_dock->raise();
  addDockWidget(Qt::BottomDockWidgetArea, problems_dock);
  addDockWidget(Qt::BottomDockWidgetArea, run_dock);
  addDockWidget(Qt::BottomDockWidgetArea, diff_dock);
  tabifyDockWidget(problems_dock, run_dock);
  tabifyDockWidget(run_dock, diff_dock);
  problems_dock->raise();
  resizeDocks({kernel_dock, code_dock}, {300, 620}, Qt::Horizontal);
  resizeDocks({problems_dock}, {170}, Qt::Vertical);
}

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&New"), QKeySequence::New, this, &MainWindow::new_file);
  file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::open_dialog);
  QMenu* examples = file->addMenu(tr("&Examples"));
  for (const QFileInfo& f : QDir(examples_dir_).entryInfoList({QStringLiteral("*.tc")}, QDir::Files, QDir::Name)) {
    QString path = f.absoluteFilePath();
    examples->addAction(f.completeBaseName(), this, [this, path] {
      if (maybe_save()) open_file(path);
    });
  }
  examples->setEnabled(!examples->isEmpty());
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  file->addSeparator();
  file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
  file->addAction(tr("Save &As..."), QKeySequence::SaveAs, this, &MainWindow::save_as);
  file->addSeparator();
  file->addAction(tr("&Export Kernel..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), this, &MainWindow::export_dialog);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(tr("&Undo"), QKeySequence::Undo, editor_, &QsciScintilla::undo);
  edit->addAction(tr("&Redo"), QKeySequence::Redo, editor_, &QsciScintilla::redo);
  edit->addSeparator();
  edit->addAction(tr("Cu&t"), QKeySequence::Cut, editor_, &QsciScintilla::cut);
  edit->addAction(tr("&Copy"), QKeySequence::Copy, editor_, &QsciScintilla::copy);
  edit->addAction(tr("&Paste"), QKeySequence::Paste, editor_, &QsciScintilla::paste);
  edit->addSeparator();
  edit->addAction(tr("&Find..."), QKeySequence::Find, find_bar_, &FindBar::open_find);
  edit->addAction(tr("Find &Next"), QKeySequence::FindNext, this, [this] { find_bar_->find_next(true); });
  edit->addAction(tr("Find Pre&vious"), QKeySequence::FindPrevious, this, [this] { find_bar_->find_next(false); });
  edit->addAction(tr("R&eplace..."), QKeySequence(Qt::CTRL | Qt::Key_H), find_bar_, &FindBar::open_replace);
  edit->addSeparator();
  edit->addAction(tr("Toggle &Comment"), QKeySequence(Qt::CTRL | Qt::Key_Slash), editor_, &SourceEditor::toggle_comment);
  edit->addAction(tr("Complete &Word"), QKeySequence(Qt::CTRL | Qt::Key_Space), editor_, &SourceEditor::show_completions);

  QMenu* build = menuBar()->addMenu(tr("&Build"));
  build->addAction(tr("&Compile Now"), QKeySequence(Qt::CTRL | Qt::Key_B), this, &MainWindow::compile_now);
  build->addAction(tr("&Run (Time and Check)"), QKeySequence(Qt::CTRL | Qt::Key_R), this, &MainWindow::run_with_check);
  build->addAction(tr("C&ancel"), QKeySequence(Qt::CTRL | Qt::Key_Period), service_, &CompileService::cancel);
  build->addAction(tr("Reset &Sizes to the Header"), this, [this] { kernel_->sizes()->clear_overrides(); });
  build->addAction(tr("&Pin Result for Diff"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), diff_, &DiffPanel::pin);
  QMenu* target = build->addMenu(tr("&Target"));
  auto* targets = new QActionGroup(this);
  QAction* cpu = target->addAction(tr("CPU (this machine, LLVM)"));
  cpu->setCheckable(true);
  cpu->setChecked(true);
  targets->addAction(cpu);
  QAction* cuda = target->addAction(tr("CUDA (NVRTC) — not built yet"));
  cuda->setCheckable(true);
  cuda->setEnabled(false);
  targets->addAction(cuda);

  view_menu_ = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* d : findChildren<QDockWidget*>()) view_menu_->addAction(d->toggleViewAction());
  view_menu_->addSeparator();
  QAction* comments = view_menu_->addAction(tr("Hide &Comments in Code"));
  comments->setObjectName(QStringLiteral("hideComments"));
  comments->setCheckable(true);
  connect(comments, &QAction::toggled, this, [this](bool on) {
    for (CodeView* v : code_->views()) v->set_hide_comments(on);
  });
  QAction* directives = view_menu_->addAction(tr("Hide &Directives in Code"));
  directives->setObjectName(QStringLiteral("hideDirectives"));
  directives->setCheckable(true);
  connect(directives, &QAction::toggled, this, [this](bool on) {
    for (CodeView* v : code_->views()) v->set_hide_directives(on);
  });
  QMenu* code_layout = view_menu_->addMenu(tr("Code &Layout"));
  const std::pair<QString, std::vector<std::vector<int>>> layouts[] = {
      {tr("All Code in One Column"), {{CPane, LlvmPane, AsmPane, SchedulePane}}},
      {tr("C | Assembly"), {{CPane, SchedulePane}, {AsmPane, LlvmPane}}},
      {tr("C | LLVM IR | Assembly"), {{CPane, SchedulePane}, {LlvmPane}, {AsmPane}}},
      {tr("C | Schedule Tree"), {{CPane, LlvmPane, AsmPane}, {SchedulePane}}},
  };
  for (const auto& [name, columns] : layouts)
    code_layout->addAction(name, this, [this, columns] { set_code_columns(columns); });
  view_menu_->addSeparator();
  dark_action_ = view_menu_->addAction(tr("&Dark Theme"));
  dark_action_->setCheckable(true);
  dark_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
  connect(dark_action_, &QAction::toggled, this, &MainWindow::set_dark);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("Language &Reference"), QKeySequence::HelpContents, this, &MainWindow::show_reference);
  help->addAction(tr("&About TC Studio"), this, [this] {
    QMessageBox::about(this, tr("About TC Studio"),
                       tr("<b>TC Studio %1</b><p>An IDE for tensor comprehensions: a polyhedral compiler (isl) "
                          "with a CPU backend (LLVM), live.</p>")
                           .arg(QApplication::applicationVersion()));
  });
}

// QScintilla binds many Ctrl keys to editing commands (Ctrl+Shift+T copies the line,
// Ctrl+/ moves by word part) and claims them before the window's shortcuts see them. Every
// menu shortcut is released from every editor and code pane, so it works from anywhere.
void MainWindow::release_shortcuts() {
  std::vector<int> keys;
  std::function<void(const QList<QAction*>&)> collect = [&](const QList<QAction*>& actions) {
    for (QAction* a : actions) {
      if (a->menu()) collect(a->menu()->actions());
      for (const QKeySequence& k : a->shortcuts())
        if (k.count() == 1) keys.push_back(k[0].toCombined());
    }
  };
  collect(menuBar()->actions());
  for (QsciScintilla* w : findChildren<QsciScintilla*>())
    for (QsciCommand* c : w->standardCommands()->commands())
      for (int k : keys) {
        if (c->key() == k) c->setKey(0);
        if (c->alternateKey() == k) c->setAlternateKey(0);
      }
}

// Side by side needs room: the code dock takes what the columns ask for, up to half the
// window (the editor keeps the other half).
void MainWindow::set_code_columns(const std::vector<std::vector<int>>& columns) {
  code_->set_columns(columns);
  if (auto* dock = qobject_cast<QDockWidget*>(code_->parentWidget())) {
    dock->show();
    int per_column = 420;
    resizeDocks({dock}, {std::min(width() / 2, per_column * int(code_->columns().size()))}, Qt::Horizontal);
  }
  keep_editor_half();
}

// The editor keeps at least half the window's width: when the docks beside it would take
// more, the Kernel and Passes docks join the code dock's tabs and the code dock narrows.
// When the window is wide again they go back to the left, as they were.
void MainWindow::keep_editor_half() {
  if (!isVisible()) return;
  constexpr int kRoomForLeftDocks = 1600;
  QDockWidget* code_dock = qobject_cast<QDockWidget*>(code_->parentWidget());
  constexpr int kLeftDocksWidth = 300;
  if (width() >= kRoomForLeftDocks && !collapsed_.empty()) {
    QDockWidget* first = nullptr;
    for (QDockWidget* d : collapsed_) {
      if (!d) continue;
      addDockWidget(Qt::LeftDockWidgetArea, d);
      if (first) tabifyDockWidget(first, d);
      else first = d;
    }
    collapsed_.clear();
    if (first) {
      first->raise();
      // Left docks and code dock together within half, so the next resize does not
      // collapse them again.
      resizeDocks({first, code_dock}, {kLeftDocksWidth, width() / 2 - kLeftDocksWidth - 16}, Qt::Horizontal);
    }
    return;
  }
  int half = width() / 2;
  if (centralWidget()->width() >= half - 8) return;
  for (QDockWidget* d : findChildren<QDockWidget*>()) {
    // Tabs behind the current one count too: they are open, only not on top.
    if (d == code_dock || d->isFloating() || !d->toggleViewAction()->isChecked() || dockWidgetArea(d) != Qt::LeftDockWidgetArea) continue;
    addDockWidget(Qt::RightDockWidgetArea, d);
    tabifyDockWidget(code_dock, d);
    collapsed_.push_back(d);
  }
  code_dock->raise();
  resizeDocks({code_dock}, {width() - half - 8}, Qt::Horizontal);
}

void MainWindow::resizeEvent(QResizeEvent* event) {
  QMainWindow::resizeEvent(event);
  QTimer::singleShot(0, this, &MainWindow::keep_editor_half);  // once the layout has settled
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  QTimer::singleShot(0, this, &MainWindow::keep_editor_half);
}

void MainWindow::set_dark(bool dark) {
  if (dark_action_ && dark_action_->isChecked() != dark) dark_action_->setChecked(dark);  // re-enters once
  setPalette(widget_palette(dark));  // docks, tables, forms; floating docks are children too
  editor_->set_dark(dark);
  for (CodeView* v : code_->views()) v->set_dark(dark);
  passes_->tree()->set_dark(dark);
  diff_->set_dark(dark);
  domain_->set_dark(dark);
  fusion_->set_dark(dark);
  tiling_->set_dark(dark);
}

// ---------------------------------------------------------------- compiling

void MainWindow::schedule_compile() {
  if (!debounce_->isActive()) submit(false);  // leading edge: no wait after a pause
  else edits_pending_ = true;                 // trailing edge: when the burst ends
  debounce_->start();
}

void MainWindow::compile_now() {
  debounce_->stop();
  edits_pending_ = false;
  submit(false);
}

void MainWindow::run_with_check() {
  debounce_->stop();
  edits_pending_ = false;
  run_report_->show_started();
  if (auto* dock = qobject_cast<QDockWidget*>(run_report_->parentWidget())) dock->raise();
  submit(true);
}

CompileJob MainWindow::current_job(bool run) const {
  CompileJob job;
  job.file_name = QFileInfo(path_.isEmpty() ? tr("untitled.tc") : path_).fileName().toStdString();
  job.text = editor_->text().toStdString();
  job.entry = kernel_->entry()->currentText().toStdString();
  job.sizes = kernel_->sizes()->overrides();
  job.preset = kernel_->options()->preset();
  job.options_json = kernel_->options()->custom_json();
  job.run = run;
  job.threads = run_report_->threads();
  job.cold_caches = run_report_->cold_caches();
  return job;
}

void MainWindow::submit(bool run) {
  service_->submit(current_job(run));
  timings_label_->setText(tr("compiling..."));
}

QString MainWindow::export_to(const QString& dir, ExportSettings settings) {
  KernelSetup setup;
  MappingOptions options;
  auto prepared = prepare_outcome(current_job(false), &setup, &options);
  if (prepared->error) return QString::fromStdString(prepared->error->message);
  if (!setup.def) return tr("there is no def to export");
  settings.source_name = prepared->checked->file.name();
  QApplication::setOverrideCursor(Qt::WaitCursor);
  auto bundle = export_bundle(setup, options, settings);
  QApplication::restoreOverrideCursor();
  if (!bundle) return QString::fromStdString(bundle.error());
  if (Status s = bundle_write(*bundle, dir.toStdString()); !s) return QString::fromStdString(s.error());
  return {};
}

void MainWindow::export_dialog() {
  KernelSetup setup;
  MappingOptions options;
  prepare_outcome(current_job(false), &setup, &options);  // for the sizes shown; export_to reports problems
  QString sizes = setup.def ? QString::fromStdString(sizes_describe(*setup.def, setup.shapes.sizes)) : tr("the sizes shown");
  QString start = path_.isEmpty() ? QDir::homePath() : QFileInfo(path_).absolutePath();
  ExportDialog dialog(start + "/" + QString::fromStdString(setup.def ? setup.def->name : "kernel"), sizes, this);
  if (dialog.exec() != QDialog::Accepted) return;
  QString dir = dialog.folder();
  QString problem = export_to(dir, dialog.settings());
  if (!problem.isEmpty()) {
    QMessageBox::warning(this, tr("Export"), tr("Cannot export: %1").arg(problem));
    return;
  }
  statusBar()->showMessage(tr("Exported to %1: header, C, object, CMakeLists.txt, example and README").arg(dir), 8000);
}

CodeView* MainWindow::code_view(Pane p) const { return code_->view(int(p)); }
SizesModel* MainWindow::sizes() const { return kernel_->sizes(); }
OptionsPanel* MainWindow::options() const { return kernel_->options(); }
QComboBox* MainWindow::entry_box() const { return kernel_->entry(); }
CodeView* MainWindow::pass_tree_view() const { return passes_->tree(); }
PassListModel* MainWindow::passes() const { return passes_->model(); }
ChangedPassFilter* MainWindow::pass_filter() const { return passes_->filter(); }
QListView* MainWindow::pass_list() const { return passes_->list(); }
QPlainTextEdit* MainWindow::run_report() const { return run_report_->report(); }

bool MainWindow::idle() const { return !edits_pending_ && !document_options_->pending() && !service_->busy(); }

QString MainWindow::status_text() const { return timings_label_->text() + " | " + problems_label_->text(); }

bool MainWindow::outcome_matches_editor() const {
  return outcome_ && outcome_->checked && editor_->text().toStdString() == outcome_->checked->file.text();
}

void MainWindow::show_outcome(std::shared_ptr<const CompileOutcome> o) {
  outcome_ = o;
  const CheckedFile& checked = *o->checked;
  std::vector<Diagnostic> problems = outcome_problems(*o);
  // Diagnostics: only when they describe the text on screen (ranges would be off otherwise).
  if (outcome_matches_editor()) {
    editor_->show_diagnostics(problems);
    model_->set_diagnostics(checked.file, problems);
    problems_->resizeColumnToContents(DiagnosticsModel::SeverityColumn);
    problems_->resizeColumnToContents(DiagnosticsModel::LineColumnColumn);
  }
  int errors = 0, warnings = 0, notes = 0;
  for (const Diagnostic& d : problems) {
    if (d.severity == Severity::Error) ++errors;
    if (d.severity == Severity::Warning) ++warnings;
    if (d.severity == Severity::Note) ++notes;
  }
  QString label = errors || warnings ? tr("%1 error(s), %2 warning(s)").arg(errors).arg(warnings) : tr("no problems");
  problems_label_->setText(notes ? label + tr(", %1 note(s)").arg(notes) : label);

  editor_->set_shapes(o->entry, o->shapes ? &*o->shapes : nullptr);
  if (o->result && !o->result->lowering.passes.empty()) {
    if (tree_id_ != o->id) schedule_tree_->show_tree(o->result->lowering.passes.back().tree, o->result->lowering.nest);
    tree_id_ = o->id;
    submit_space(false);
  }
  if (o->final) explore_outcome();

  // Status bar: the phase timings of this result.
  QStringList phases;
  double total = 0;
  for (const PhaseTime& t : o->timings) {
    phases << QStringLiteral("%1 %2").arg(QString::fromStdString(t.phase)).arg(t.milliseconds, 0, 'f', 1);
    total += t.milliseconds;
  }
  QString state = o->final ? QString() : tr(" · LLVM compiling...");
  QString error = !o->error || o->failed(ErrorKind::Source) ? QString()
                                                          : tr(" · %1").arg(QString::fromStdString(o->error_message()));
  timings_label_->setText(tr("%1 ms: %2%3%4").arg(total, 0, 'f', 1).arg(phases.join(QStringLiteral(" · ")), state, error));
  emit outcome_shown(o->final);
}

// ---------------------------------------------------------------- links

void MainWindow::link_from_editor() {
  if (linking_ || !outcome_matches_editor() || !outcome_->result) return;
  const SymbolIndex& symbols = editor_->symbols();
  uint32_t caret = editor_->caret_offset();
  int def = symbols.def_at(caret);
  int stmt = def == outcome_->entry ? symbols.stmt_at(def, caret) : -1;
  editor_->show_linked({});
  mark_statements(stmt >= 0 ? std::set<int>{stmt} : std::set<int>{});
  if (stmt >= 0) {
    std::string name = "S" + std::to_string(stmt);
    schedule_tree_->select_statement(name);
    domain_->highlight_statement(name);
  }
}

void MainWindow::link_from_point(const std::string& statement, int source_stmt) {
  if (!outcome_matches_editor() || !outcome_->def()) return;
  schedule_tree_->select_statement(statement);
  if (source_stmt < 0 || size_t(source_stmt) >= outcome_->def()->stmts.size()) return;
  linking_ = true;
  editor_->show_linked({outcome_->def()->stmts[size_t(source_stmt)].ast->range});
  linking_ = false;
  mark_statements({source_stmt});
}

void MainWindow::submit_space(bool always) {
  if (!on_screen(domain_dock_) || !outcome_ || !outcome_->result) return;
  if (!always && space_outcome_ && space_outcome_->id == outcome_->id) return;
  space_outcome_ = outcome_;
  space_->submit(domain_->request_for(outcome_));
}

void MainWindow::explore_outcome() {
  if (!outcome_ || !outcome_->final || !outcome_->result || outcome_->error) return;
  if (on_screen(fusion_dock_)) fusion_->explore(outcome_);
  if (on_screen(tiling_dock_)) tiling_->show_outcome(outcome_);
}

void MainWindow::apply_options(const MappingOptions& options) { document_options_->apply(options); }

void MainWindow::link_from_line(const LineOrigin& origin) {
  // Faded code from an older result maps to that result's statements, not this one's.
  if (!outcome_matches_editor() || !outcome_->result || !outcome_->def()) return;
  std::set<int> stmts = code_->links().source_statements(origin);
  std::vector<SourceRange> ranges;
  for (int s : stmts) ranges.push_back(outcome_->def()->stmts[size_t(s)].ast->range);
  linking_ = true;
  editor_->show_linked(ranges);
  linking_ = false;
  mark_statements(stmts);
  // The tree follows: the loop's row, or the statement's.
  if (!schedule_tree_->select_loop(origin.loop_id) && origin.stmt >= 0 && size_t(origin.stmt) < outcome_->result->lowering.nest.stmts.size())
    schedule_tree_->select_statement(outcome_->result->lowering.nest.stmts[size_t(origin.stmt)].name);
}

void MainWindow::mark_statements(const std::set<int>& source_stmts) {
  auto pred = [&](const LineOrigin& o) {
    for (int s : source_stmts)
      if (code_->links().generated_by(o, s)) return true;
    return false;
  };
  for (CodeView* v : code_->views()) v->mark_lines(pred);
  passes_->tree()->mark_lines(pred);
}

void MainWindow::jump_to_problem(const QModelIndex& index) {
  if (!index.isValid()) return;
  const Diagnostic& d = model_->diagnostic(index.row());
  editor_->select_bytes(d.range.begin, std::max(d.range.end, d.range.begin + 1));
}

void MainWindow::show_reference() {
  auto* dialog = new QDialog(this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowTitle(tr("The comprehension language"));
  auto* browser = new QTextBrowser(dialog);
  QFile f(QStringLiteral(":/reference/LANGUAGE.md"));
  browser->setMarkdown(f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll())
                                                   : tr("The language reference is missing from this build."));
  auto* l = new QVBoxLayout(dialog);
  l->addWidget(browser);
  dialog->resize(820, 700);
  dialog->show();
}

// ---------------------------------------------------------------- settings

void MainWindow::restore_settings() {
  QSettings s;
  restoreGeometry(s.value(QStringLiteral("geometry")).toByteArray());
  restoreState(s.value(QStringLiteral("windowState")).toByteArray());
  set_dark(s.value(QStringLiteral("darkTheme"), false).toBool());
  code_->set_layout_text(s.value(QStringLiteral("codeLayout"), code_->layout_text()).toString());
  code_->splitter()->restoreState(s.value(QStringLiteral("codeColumns")).toByteArray());
  for (const char* name : {"hideComments", "hideDirectives"})
    if (auto* a = findChild<QAction*>(QString::fromLatin1(name))) a->setChecked(s.value(QString::fromLatin1(name), false).toBool());
  // How Run times (every core unless a count was saved; one past this machine's clamps).
  run_report_->set_threads(s.value(QStringLiteral("runThreads"), 1 << 20).toInt());
  run_report_->set_cold_caches(s.value(QStringLiteral("runColdCaches"), false).toBool());
  rebuild_recent_menu();
}

void MainWindow::save_settings() {
  QSettings s;
  s.setValue(QStringLiteral("geometry"), saveGeometry());
  s.setValue(QStringLiteral("windowState"), saveState());
  s.setValue(QStringLiteral("darkTheme"), dark_action_->isChecked());
  s.setValue(QStringLiteral("codeLayout"), code_->layout_text());
  s.setValue(QStringLiteral("codeColumns"), code_->splitter()->saveState());
  for (const char* name : {"hideComments", "hideDirectives"})
    if (auto* a = findChild<QAction*>(QString::fromLatin1(name))) s.setValue(QString::fromLatin1(name), a->isChecked());
  s.setValue(QStringLiteral("runThreads"), run_report_->threads());
  s.setValue(QStringLiteral("runColdCaches"), run_report_->cold_caches());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybe_save()) {
    event->ignore();
    return;
  }
  save_settings();
  event->accept();
}

}  // namespace tcs
