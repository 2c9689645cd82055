// Issue 11's workspace: code panes side by side with cross-highlighting and a layout that
// persists, a small screen where the editor keeps half the width, a dark theme over the
// whole window, and screenshots at 1280x720 and 1920x1080 in both themes.
#include <QDockWidget>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QtTest>

#include "views/code/CodePanel.h"
#include "views/code/CodeView.h"
#include "views/editor/SourceEditor.h"
#include "views/models/SizesModel.h"
#include "views/panels/DiffPanel.h"
#include "views/panels/OptionsPanel.h"
#include "views/theme/Theme.h"
#include "window_driver.h"

using namespace tcs;
using namespace tcs::test;

namespace {

bool is_dark(const QColor& c) { return c.lightness() < 100; }

void put_caret_on(MainWindow& w, const QString& needle) {
  SourceEditor* e = w.editor();
  for (int l = 0; l < e->lines(); ++l)
    if (e->text(l).contains(needle)) {
      e->setCursorPosition(l, int(e->text(l).indexOf(needle)) + 1);
      return;
    }
  QFAIL(qPrintable("no line with " + needle));
}

}  // namespace

class WorkspaceTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    start_from_first_launch("workspace_test");
  }

  void c_and_assembly_side_by_side_with_cross_highlighting() {
    {
      MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
      QVERIFY(show_example(w, "conv2d.tc", QSize(1920, 1080)));
      QAction* layout = menu_action(w, "C | Assembly");
      QVERIFY(layout);
      layout->trigger();
      CodeView* c = w.code_view(MainWindow::CPane);
      CodeView* as = w.code_view(MainWindow::AsmPane);
      QTRY_VERIFY(c->isVisible() && as->isVisible());
      QVERIFY(c->mapTo(&w, QPoint(0, 0)).x() < as->mapTo(&w, QPoint(0, 0)).x());  // C on the left
      QVERIFY(as->width() > 300);
      // A statement lights up its lines in both at once, while the editor is in use.
      put_caret_on(w, "+=!");
      QTRY_VERIFY(!c->marked_lines().empty() && !as->marked_lines().empty());
      // Clicking a line in the assembly pane lights the statement and the C lines.
      int line = as->marked_lines().front();
      put_caret_on(w, "def ");
      QTRY_VERIFY(c->marked_lines().empty());
      as->setCursorPosition(line, 2);
      QTRY_VERIFY(!c->marked_lines().empty());
      QCOMPARE(w.code_panel()->layout_text(), QStringLiteral("0,3|2,1"));
      // A third column, from a tab's own menu.
      w.code_panel()->move_pane(MainWindow::LlvmPane, 2);
      QCOMPARE(int(w.code_panel()->columns().size()), 3);
      QTRY_VERIFY(w.code_view(MainWindow::LlvmPane)->isVisible() && c->isVisible() && as->isVisible());
      screenshot(&w, "side_by_side_1920x1080_light");
      QVERIFY(w.close());
    }
    // The layout comes back in the next session.
    MainWindow again(QStringLiteral(TCS_EXAMPLES_DIR));
    QCOMPARE(again.code_panel()->layout_text(), QStringLiteral("0,3|2|1"));
    again.set_code_columns({{MainWindow::CPane, MainWindow::LlvmPane, MainWindow::AsmPane, MainWindow::SchedulePane}});
    QVERIFY(again.close());
  }

  // Item 10: the diff lists the options that differ and the measured times of both sides.
  void the_diff_explains_itself() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(show_example(w, "matmul.tc", QSize(1920, 1080)));
    w.run_with_check();
    QVERIFY(wait_idle(w));
    w.diff()->pin();
    w.options()->set_preset("naive");
    QVERIFY(wait_idle(w));
    w.run_with_check();
    QVERIFY(wait_idle(w));
    QString details = w.diff()->details();
    QVERIFY2(details.contains(QRegularExpression(R"(tile: \[\d+, 512, 256\] → \[\])")), qPrintable(details));
    QVERIFY(details.contains("cpu.vectorize: true → false"));
    QCOMPARE(details.count("runs in"), 2);  // both sides' measured times
    QVERIFY(details.contains("M=64 K=128 N=96"));
    // Two aligned columns: row i of A faces row i of B; removed lines only on the left.
    QsciScintilla* a = w.diff()->side(0);
    QsciScintilla* b = w.diff()->side(1);
    QCOMPARE(a->lines(), b->lines());
    int removed_rows = 0;
    for (int l = 0; l < a->lines(); ++l) removed_rows += (a->markersAtLine(l) != 0);
    QVERIFY(removed_rows > 0);
    w.findChild<QDockWidget*>("diffDock")->raise();
    screenshot(&w, "diff_1920x1080");
    // An error leaves B as it was, marked.
    w.options()->json_edit()->setPlainText("{\"tile\": [0]}");
    QVERIFY(wait_idle(w));
    QVERIFY2(w.diff()->summary().startsWith("Stale: B is the last result with code"), qPrintable(w.diff()->summary()));
  }

  void a_small_screen_keeps_half_the_width_for_the_editor() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(show_example(w, "group_conv.tc", QSize(1280, 720)));
    QTRY_VERIFY2(w.editor()->width() >= 1280 / 2 - 20, qPrintable(QString::number(w.editor()->width())));
    // Every size of the example shows without scrolling.
    auto* view = w.findChild<QTableView*>("sizes");
    QCOMPARE(w.sizes()->rowCount(), 8);
    w.findChild<QDockWidget*>("kernelDock")->raise();
    QTRY_VERIFY(view->isVisible());
    QVERIFY(view->rowViewportPosition(7) + view->rowHeight(7) <= view->viewport()->height());
    screenshot(&w, "main_window_1280x720_light");
    // Wide again: the Kernel dock goes back to the left of the editor.
    w.resize(1920, 1080);
    QTRY_COMPARE(w.dockWidgetArea(w.findChild<QDockWidget*>("kernelDock")), Qt::LeftDockWidgetArea);
    QTRY_VERIFY(w.editor()->width() >= 1920 / 2 - 20);
  }

  void the_dark_theme_covers_the_whole_window() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(show_example(w, "matmul.tc", QSize(1280, 720)));
    w.set_dark(true);
    for (const char* name : {"problems", "sizes"}) {
      auto* table = w.findChild<QTableView*>(name);
      QVERIFY(table);
      QVERIFY2(is_dark(table->palette().color(QPalette::Base)), name);
    }
    for (QDockWidget* d : w.findChildren<QDockWidget*>()) QVERIFY2(is_dark(d->palette().color(QPalette::Window)), qPrintable(d->objectName()));
    QVERIFY(is_dark(w.options()->palette().color(QPalette::Window)));
    QVERIFY(!is_dark(w.options()->palette().color(QPalette::WindowText)));
    screenshot(&w, "main_window_1280x720_dark");
    w.resize(1920, 1080);
    w.set_code_columns({{MainWindow::CPane, MainWindow::SchedulePane}, {MainWindow::AsmPane, MainWindow::LlvmPane}});
    put_caret_on(w, "+=!");
    QTRY_VERIFY(!w.code_view(MainWindow::AsmPane)->marked_lines().empty());
    screenshot(&w, "side_by_side_1920x1080_dark");
    w.set_dark(false);
    QVERIFY(!is_dark(w.findChild<QTableView*>("problems")->palette().color(QPalette::Base)));
    w.set_code_columns({{MainWindow::CPane, MainWindow::LlvmPane, MainWindow::AsmPane, MainWindow::SchedulePane}});
  }
};

QTEST_MAIN(WorkspaceTest)
#include "workspace_test.moc"
