// The desktop window, driven as a user would: open an example, break it by typing, see the
// squiggle and the Problems entry, fix it, wait for the code views, select a statement and
// check the lines it generated light up; change sizes and options, diff two option sets,
// run with check, save. Screenshots go to $TCS_SCREENSHOT_DIR when set.
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QPushButton>
#include <QRadioButton>
#include <QDir>
#include <QDockWidget>
#include <QLineEdit>
#include <QListView>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTimer>
#include <QtTest>

#include "views/code/CodeView.h"
#include "views/dialogs/ExportDialog.h"
#include "views/service/CompileService.h"
#include "views/models/DiagnosticsModel.h"
#include "views/panels/DiffPanel.h"
#include "views/MainWindow.h"
#include "views/panels/OptionsPanel.h"
#include "views/panels/RunPanel.h"
#include "views/models/PassListModel.h"
#include "views/models/SizesModel.h"
#include "views/editor/SourceEditor.h"
#include "views/theme/Theme.h"
#include "window_driver.h"

using namespace tcs;
using namespace tcs::test;

namespace {

int line_containing(QsciScintilla* e, const QString& needle) {
  for (int i = 0; i < e->lines(); ++i)
    if (e->text(i).contains(needle)) return i;
  return -1;
}

}  // namespace

class MainWindowTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    start_from_first_launch("views_test");
  }

  void break_fix_and_link() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    w.resize(1600, 950);
    QVERIFY(w.open_file(QStringLiteral(TCS_EXAMPLES_DIR) + "/conv2d.tc"));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.windowTitle().contains("conv2d.tc"));
    QVERIFY(wait_idle(w));
    QCOMPARE(w.diagnostics()->rowCount(), 0);
    QVERIFY(w.code_view(MainWindow::CPane)->text().contains("void conv2d"));
    QVERIFY(w.code_view(MainWindow::LlvmPane)->text().contains("define"));
    QVERIFY(w.code_view(MainWindow::AsmPane)->text().contains("conv2d"));
    QVERIFY(w.code_view(MainWindow::SchedulePane)->text().contains("band"));
    QCOMPARE(w.entry_box()->currentText(), QStringLiteral("conv2d"));
    QCOMPARE(w.sizes()->rowCount(), 7);
    QVERIFY(w.status_text().contains("schedule"));

    // Type a misspelt tensor name at the end of the first statement's right-hand side.
    SourceEditor* e = w.editor();
    QString text = e->text();
    int line = line_containing(e, "+=!");
    QVERIFY(line >= 0);
    QString stmt = e->text(line);
    int col = int(stmt.trimmed().size() + stmt.indexOf(stmt.trimmed()));
    e->setCursorPosition(line, col);
    e->setFocus();
    QTest::keyClicks(e->viewport(), " * Scal(f)");
    QVERIFY(w.isWindowModified());
    QTRY_COMPARE_WITH_TIMEOUT(w.diagnostics()->rowCount(), 1, kWaitMs);
    QVERIFY(w.diagnostics()->index(0, DiagnosticsModel::MessageColumn).data().toString()
                .contains("unknown tensor or function 'Scal'"));
    long begin = w.diagnostics()->index(0, 0).data(DiagnosticsModel::RangeBeginRole).toLongLong();
    QVERIFY(indicator_at(e, SourceEditor::kErrorIndicator, begin) != 0);
    QCOMPARE(indicator_at(e, SourceEditor::kErrorIndicator, 0), 0);
    QVERIFY(w.code_view(MainWindow::CPane)->text().contains("void conv2d"));  // the last good code stays
    screenshot(&w, "main_window_error");

    // Clicking the problem selects the offending token in the editor.
    QTableView* view = w.problems_view();
    QRect cell = view->visualRect(view->model()->index(0, DiagnosticsModel::MessageColumn));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(e->selectedText(), QStringLiteral("Scal"));

    // Fix it by undoing the typing: the squiggle and the entry disappear, the code returns.
    while (e->text() != text && e->isUndoAvailable()) e->undo();
    QCOMPARE(e->text(), text);
    QTRY_COMPARE_WITH_TIMEOUT(w.diagnostics()->rowCount(), 0, kWaitMs);
    QVERIFY(wait_idle(w));
    QCOMPARE(indicator_at(e, SourceEditor::kErrorIndicator, begin), 0);

    // Put the caret in the first statement: the C pane marks exactly the lines whose
    // origin is that statement (its initialisation and its update).
    e->setCursorPosition(line, 8);
    CodeView* c = w.code_view(MainWindow::CPane);
    // (Scintilla reports caret moves when it next updates the view, hence the waits.)
    QTRY_COMPARE(int(c->marked_lines().size()), 2);
    std::vector<int> marked = c->marked_lines();
    for (int l : marked) QVERIFY(c->origin_of_line(l).stmt >= 0);
    // The initialisation runs inside the register tiles, so its line says so, and the
    // update starts each sum from zero where it begins.
    QVERIFY(c->text(marked[0]).contains("not run"));
    QVERIFY(c->text(marked[1]).contains("O["));
    QVERIFY(c->text(marked[1]).contains("? 0 :"));
    QVERIFY(!c->text(marked[1]).contains("Bias"));
    QVERIFY(!w.code_view(MainWindow::AsmPane)->marked_lines().empty());
    QVERIFY(!w.code_view(MainWindow::LlvmPane)->marked_lines().empty());
    QVERIFY(!w.code_view(MainWindow::SchedulePane)->marked_lines().empty());
    // The second statement marks its own line only.
    int bias_line = line_containing(e, "Bias(f)");
    e->setCursorPosition(bias_line, 8);
    QTRY_COMPARE(int(c->marked_lines().size()), 1);
    marked = c->marked_lines();
    QVERIFY(c->text(marked[0]).contains("Bias["));
    screenshot(&w, "main_window");

    // The other way: click the bias line in the C pane; the second statement lights up.
    e->setCursorPosition(0, 0);
    QTRY_VERIFY(c->marked_lines().empty());
    c->setCursorPosition(marked[0], 4);
    const std::string src = e->text().toStdString();
    long bias_pos = long(src.find("O(n, f, h, w)  ="));
    QVERIFY(bias_pos > 0);
    QTRY_VERIFY(indicator_at(e, SourceEditor::kLinkedIndicator, bias_pos) != 0);
    QCOMPARE(indicator_at(e, SourceEditor::kLinkedIndicator, long(src.find("+=!"))), 0);
    // A loop line lights up every statement inside that loop.
    int loop_line = -1;
    for (int l = 0; l < c->lines() && loop_line < 0; ++l)
      if (c->origin_of_line(l).loop_id >= 0 && c->origin_of_line(l).stmt < 0 && c->text(l).contains("for")) loop_line = l;
    QVERIFY(loop_line >= 0);
    c->setCursorPosition(loop_line, 2);
    QTRY_VERIFY(indicator_at(e, SourceEditor::kLinkedIndicator, long(src.find("+=!"))) != 0);
    e->setModified(false);
  }

  void sizes_options_passes_and_diff() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(w.open_file(QStringLiteral(TCS_EXAMPLES_DIR) + "/matmul.tc"));
    w.show();
    QVERIFY(wait_idle(w));
    QVERIFY(w.code_view(MainWindow::CPane)->text().contains("M=64 K=128 N=96"));

    // A size edited in the panel recompiles with it.
    int k_row = -1;
    for (int r = 0; r < w.sizes()->rowCount(); ++r)
      if (w.sizes()->index(r, 0).data().toString() == "K") k_row = r;
    QVERIFY(k_row >= 0);
    QVERIFY(w.sizes()->setData(w.sizes()->index(k_row, SizesModel::ValueColumn), 40));
    QTRY_VERIFY_WITH_TIMEOUT(w.code_view(MainWindow::CPane)->text().contains("K=40"), kWaitMs);
    QVERIFY(wait_idle(w));

    // Pin this result for the diff, then switch to the naive preset.
    w.diff()->pin();
    w.options()->set_preset("naive");
    QTRY_VERIFY_WITH_TIMEOUT(w.outcome() && w.outcome()->options_json.find("\"tile\": []") != std::string::npos,
                             kWaitMs);
    QVERIFY(wait_idle(w));
    QVERIFY(!w.code_view(MainWindow::CPane)->text().contains("#pragma omp"));
    int added = 0, removed = 0;
    for (const DiffLine& l : w.diff()->lines()) {
      added += l.kind == DiffLine::Added;
      removed += l.kind == DiffLine::Removed;
    }
    QVERIFY(added > 0 && removed > 0);
    QVERIFY2(w.diff()->summary().contains("schedules differ"), qPrintable(w.diff()->summary()));

    // A key field edits the options in effect and switches to custom.
    w.options()->tile_edit()->setText("8, 8");
    emit w.options()->tile_edit()->editingFinished();
    QCOMPARE(w.options()->preset_box()->currentText(), QStringLiteral("custom"));
    QTRY_VERIFY_WITH_TIMEOUT(w.outcome() && w.outcome()->options_json.find("\"tile\": [8, 8]") != std::string::npos,
                             kWaitMs);
    // Broken JSON is reported and the last good code stays.
    w.options()->json_edit()->setPlainText("{\"tile\": [0]}");
    QTRY_VERIFY_WITH_TIMEOUT(w.outcome() && w.outcome()->error_message().find("tile") != std::string::npos, kWaitMs);
    QVERIFY(w.code_view(MainWindow::CPane)->text().contains("void matmul"));

    // Pass list: the changed-only filter, and the tree after a chosen pass.
    w.options()->set_preset("default");
    QVERIFY(wait_idle(w));
    QVERIFY(!w.outcome()->error);
    int all = w.pass_filter()->rowCount();
    QCOMPARE(all, int(compile_pass_names().size()));
    w.pass_filter()->set_changed_only(true);
    QVERIFY(w.pass_filter()->rowCount() < all);
    w.pass_list()->setCurrentIndex(w.pass_filter()->index(0, 0));
    QVERIFY(w.pass_tree_view()->text().contains("domain"));
    QVERIFY(!w.pass_tree_view()->text().contains("tile"));  // the first pass has no tiles yet
    w.pass_list()->setCurrentIndex(w.pass_filter()->index(w.pass_filter()->rowCount() - 1, 0));
    QVERIFY(w.pass_tree_view()->text().contains("tile"));

    // Hide comments and directives in the code panes.
    auto* hide = w.findChild<QAction*>("hideComments");
    QVERIFY(hide);
    int lines_before = w.code_view(MainWindow::CPane)->lines();
    hide->setChecked(true);
    QVERIFY(w.code_view(MainWindow::CPane)->lines() < lines_before);
    QVERIFY(!w.code_view(MainWindow::CPane)->text().startsWith("//"));
    hide->setChecked(false);
  }

  // A field the options table grew shows up in the panel by itself: a pooling's default
  // fetches its rows ahead, the panel says so, and the C text tags the loop.
  void a_pooling_shows_its_fetch_distance() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    w.resize(1600, 950);
    QVERIFY(w.open_file(QStringLiteral(TCS_EXAMPLES_DIR) + "/maxpool.tc"));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(wait_idle(w));
    auto* fetch = qobject_cast<QSpinBox*>(w.options()->field_widget("cpu.fetchAhead"));
    QVERIFY(fetch);
    QCOMPARE(fetch->value(), 4);
    // The example's output rows (8 wide) are too short to fetch ahead; rows of 32 are not.
    for (int r = 0; r < w.sizes()->rowCount(); ++r)
      if (w.sizes()->index(r, 0).data().toString() == "W")
        QVERIFY(w.sizes()->setData(w.sizes()->index(r, SizesModel::ValueColumn), 64));
    QTRY_VERIFY_WITH_TIMEOUT(w.code_view(MainWindow::CPane)->text().contains("fetch-ahead(4)"), kWaitMs);
    QVERIFY(wait_idle(w));
    w.findChild<QDockWidget*>("kernelDock")->raise();
    screenshot(&w, "options_maxpool");
    fetch->setValue(0);
    QCOMPARE(w.options()->preset_box()->currentText(), QStringLiteral("custom"));
    QTRY_VERIFY_WITH_TIMEOUT(w.outcome() && w.outcome()->options_json.find("\"fetchAhead\": 0") != std::string::npos,
                             kWaitMs);
    QVERIFY(wait_idle(w));
    QVERIFY(!w.code_view(MainWindow::CPane)->text().contains("fetch-ahead("));
  }

  void run_with_check_reports_time_and_error() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(w.open_file(QStringLiteral(TCS_EXAMPLES_DIR) + "/matmul.tc"));
    w.show();
    QVERIFY(wait_idle(w));
    w.run_with_check();
    QVERIFY(wait_idle(w));
    QString report = w.run_report()->toPlainText();
    QVERIFY2(report.contains("check passed"), qPrintable(report));
    QVERIFY(report.contains("GFLOP/s"));
    QVERIFY(report.contains("worst error"));
    QVERIFY(report.contains("C: ok"));
  }

  void export_writes_the_bundle_for_the_panels_choices() {
    QTemporaryDir dir;
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(w.open_file(QStringLiteral(TCS_EXAMPLES_DIR) + "/matmul.tc"));
    QVERIFY(wait_idle(w));
    w.options()->set_preset("naive");
    QVERIFY(wait_idle(w));
    QCOMPARE(w.export_to(dir.path()), QString());
    for (const char* f : {"matmul.h", "matmul.c", "matmul.o", "matmul_object.c", "CMakeLists.txt", "example.c", "README.md"})
      QVERIFY2(QFileInfo::exists(dir.filePath(f)), f);
    QFile readme(dir.filePath("README.md"));
    QVERIFY(readme.open(QIODevice::ReadOnly));
    QVERIFY(readme.readAll().contains("\"parallel\": false"));  // the naive preset the panel shows
    // Sizes as arguments, as the export dialog offers them.
    ExportDialog dialog(dir.filePath("symbolic"), "M=64", &w);
    dialog.symbolic_button()->setChecked(true);
    dialog.cpu_box()->setCurrentText("x86-64-v3");
    QCOMPARE(dialog.settings().cpu, std::string("x86-64-v3"));
    QCOMPARE(w.export_to(dialog.folder(), dialog.settings()), QString());
    QFile header(dir.filePath("symbolic/matmul.h"));
    QVERIFY(header.open(QIODevice::ReadOnly));
    QVERIFY(header.readAll().contains("int matmul(int64_t M, int64_t K, int64_t N, const float* A"));
    dialog.folder_edit()->clear();
    QVERIFY(!dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->isEnabled());
    // Broken source: nothing is written, the problem is said.
    w.set_source("broken.tc", "def f(float(N) A) -> (O) { O(i) = A(i) * Bx(i) }\n");
    QVERIFY(!w.export_to(dir.filePath("second")).isEmpty());
    QVERIFY(!QFileInfo::exists(dir.filePath("second")));
  }

  // F1 in a build where the views library is static: the reference must be there.
  void help_shows_the_language_reference() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QAction* help = menu_action(w, "Language &Reference");
    QVERIFY(help);
    help->trigger();
    auto* browser = w.findChild<QTextBrowser*>();
    QVERIFY(browser);
    QString text = browser->toPlainText();
    QVERIFY2(!text.contains("missing from this build"), qPrintable(text.left(200)));
    QVERIFY(text.contains("comprehension"));
  }

  // Shortcuts QScintilla binds for itself (Ctrl+Shift+T copies a line, Ctrl+/ moves by
  // word part) must reach the window's actions from the editor and from code panes.
  void menu_shortcuts_work_from_the_editor_and_code_panes() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    w.set_source("k.tc", "def f(float(N) A) -> (O) {\n  O(i) = A(i)\n}\n");
    QVERIFY(wait_idle(w));
    QAction* dark = menu_action(w, "&Dark Theme");
    QVERIFY(dark);
    bool before = dark->isChecked();
    w.editor()->setFocus();
    QTest::keyClick(w.editor(), Qt::Key_T, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(dark->isChecked(), !before);
    QCOMPARE(w.editor()->lines(), 4);  // no line was copied
    w.editor()->setCursorPosition(1, 0);
    QTest::keyClick(w.editor(), Qt::Key_Slash, Qt::ControlModifier);
    QVERIFY2(w.editor()->text(1).trimmed().startsWith('#'), qPrintable(w.editor()->text(1)));
    CodeView* c = w.code_view(MainWindow::CPane);
    c->setFocus();
    QTest::keyClick(c, Qt::Key_T, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(dark->isChecked(), before);
  }

  void multi_def_files_pick_an_entry() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    w.set_source("two.tc",
                 "# sizes: N=8\ndef first(float(N) A) -> (B) {\n  B(i) = A(i) + 1\n}\n"
                 "def second(float(N) A) -> (B) {\n  B(i) = A(i) * 2\n}\n");
    QVERIFY(wait_idle(w));
    QCOMPARE(w.entry_box()->count(), 2);
    QVERIFY(w.code_view(MainWindow::CPane)->text().contains("void first"));
    w.entry_box()->setCurrentText("second");
    QTRY_VERIFY_WITH_TIMEOUT(w.code_view(MainWindow::CPane)->text().contains("void second"), kWaitMs);
  }

  void non_ascii_comments_keep_ranges_exact() {
    MainWindow w;
    w.set_source("u.tc", QStringLiteral("# größe — ünïcode\ndef f(float(N) A) -> (O) { O(i) = A(i) * Bx(i) }\n"));
    QTRY_COMPARE_WITH_TIMEOUT(w.diagnostics()->rowCount(), 1, kWaitMs);
    long begin = w.diagnostics()->index(0, 0).data(DiagnosticsModel::RangeBeginRole).toLongLong();
    w.editor()->select_bytes(uint32_t(begin), uint32_t(begin + 2));
    QCOMPARE(w.editor()->selectedText(), QStringLiteral("Bx"));
  }

  void theme_and_layout_persist_across_sessions() {
    {
      MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
      QVERIFY(w.open_file(QStringLiteral(TCS_EXAMPLES_DIR) + "/matmul.tc"));
      w.resize(1500, 900);
      w.show();
      QVERIFY(wait_idle(w));
      w.set_dark(true);
      w.findChild<QAction*>("hideComments")->setChecked(true);
      w.run_panel()->threads_box()->setValue(1);
      w.run_panel()->cold_box()->setChecked(true);
      screenshot(&w, "main_window_dark");
      QVERIFY(w.close());  // not modified: no prompt; settings are written
    }
    MainWindow again(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(again.findChild<QAction*>("hideComments")->isChecked());
    QCOMPARE(again.size(), QSize(1500, 900));
    QCOMPARE(again.editor()->lexer()->paper(0), palette(true).paper);
    QCOMPARE(again.run_panel()->threads(), 1);  // how Run times, too
    QVERIFY(again.run_panel()->cold_caches());
    again.set_dark(false);
    again.findChild<QAction*>("hideComments")->setChecked(false);
    again.run_panel()->threads_box()->setValue(again.run_panel()->threads_box()->maximum());
    again.run_panel()->cold_box()->setChecked(false);
    QVERIFY(again.close());
  }

  void save_keeps_the_text_and_clears_the_modified_mark() {
    QTemporaryDir dir;
    MainWindow w;
    w.set_source({}, "def f(float(N) A) -> (B) {\n  B(i) = A(i)\n}\n");
    QVERIFY(w.windowTitle().contains("untitled.tc"));
    w.editor()->append("# edited\n");
    QVERIFY(w.isWindowModified());
    QString path = dir.filePath("saved.tc");
    QVERIFY(w.save_to(path));
    QVERIFY(!w.isWindowModified());
    QVERIFY(w.windowTitle().contains("saved.tc"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().endsWith("# edited\n"));
  }

  // Issue 11, defect 1: a file with a NUL byte opened as its first few bytes and was then
  // saved over. Now every file the editor could show only in part is refused with the
  // reason, the open document stays, and saving it leaves the refused file alone.
  void files_that_are_not_text_are_refused_and_never_overwritten() {
    QTemporaryDir dir;
    QByteArray def = "def copy(float(N) A) -> (B) {\n    B(i) = A(i)\n}\n";
    struct Case {
      const char* name;
      QByteArray bytes;
      const char* reason;
    };
    QByteArray binary(4096, '\0');
    for (int i = 0; i < binary.size(); ++i) binary[i] = char((i * 37) & 0xFF);
    const std::vector<Case> cases = {
        {"nul.tc", def.left(20) + QByteArray(1, '\0') + def.mid(20), "NUL byte"},
        {"latin1.tc", "# caf\xE9\n" + def, "not UTF-8"},
        {"binary.tc", "# x\n" + binary, "NUL byte"},
    };
    QString own = dir.filePath("matmul.tc");
    QVERIFY(QFile::copy(QStringLiteral(TCS_EXAMPLES_DIR) + "/matmul.tc", own));
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(w.open_file(own));
    QString shown = w.editor()->text(), title = w.windowTitle();
    for (const Case& c : cases) {
      QString path = dir.filePath(c.name);
      {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(c.bytes);
      }
      QString message;
      QTimer::singleShot(0, [&] {  // the refusal is a modal box: read it and close it
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
          message = box->text();
          box->accept();
        }
      });
      QVERIFY(!w.open_file(path));
      QVERIFY2(message.contains(c.reason) && message.contains(c.name), qPrintable(message));
      QCOMPARE(w.editor()->text(), shown);
      QCOMPARE(w.windowTitle(), title);
      QVERIFY(w.save_to(own));  // the document on screen goes to its own file
      QFile f(path);
      QVERIFY(f.open(QIODevice::ReadOnly));
      QCOMPARE(f.readAll(), c.bytes);
    }
  }
};

QTEST_MAIN(MainWindowTest)
#include "main_window_test.moc"
