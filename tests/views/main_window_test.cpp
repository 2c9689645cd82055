// The desktop window, driven as a user would: open an example, break it by typing, see the
// squiggle and the Problems entry, click the entry to jump, fix it. Screenshots go to
// $TCS_SCREENSHOT_DIR when set.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QTableView>
#include <QtTest>

#include "views/DiagnosticsModel.h"
#include "views/MainWindow.h"
#include "views/SourceEditor.h"
#include "lang/Frontend.h"

using namespace tcs;

class MainWindowTest : public QObject {
  Q_OBJECT

 private:
  static void screenshot(QWidget* w, const QString& name) {
    QString dir = qEnvironmentVariable("TCS_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    QVERIFY(w->grab().save(dir + "/" + name + ".png"));
  }

  static int indicator_at(SourceEditor* e, int indicator, long pos) {
    return int(e->SendScintilla(QsciScintilla::SCI_INDICATORVALUEAT, indicator, pos));
  }

 private slots:
  void diagnostics_model_is_a_valid_model() {
    DiagnosticsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto c = check_source("t.tc", "def f(float(N) A) -> (O) {\n  O(i) = A(i) * Bx(i)\n  O(i) = O(i) @ 2\n}\n");
    model.set_diagnostics(c->file, c->diagnostics);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(DiagnosticsModel::ColumnCount));
    QCOMPARE(model.index(0, DiagnosticsModel::LineColumnColumn).data().toString(), QStringLiteral("2:17"));
    QVERIFY(model.index(0, DiagnosticsModel::MessageColumn).data().toString().contains("Bx"));
    model.set_diagnostics(c->file, {});
    QCOMPARE(model.rowCount(), 0);
  }

  void break_and_fix_an_example() {
    MainWindow w;
    QVERIFY(w.open_file(QStringLiteral(TCS_EXAMPLES_DIR) + "/conv2d.tc"));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.windowTitle().contains("TC Studio"));
    QVERIFY(w.windowTitle().contains("conv2d.tc"));
    QCOMPARE(w.diagnostics()->rowCount(), 0);
    screenshot(&w, "main_window_clean");

    // Type a misspelt tensor name at the end of the first statement's right-hand side.
    SourceEditor* e = w.editor();
    QString text = e->text();
    int line = -1;
    for (int i = 0; i < e->lines(); ++i)
      if (e->text(i).contains("+=!")) { line = i; break; }
    QVERIFY(line >= 0);
    QString stmt = e->text(line);
    int col = int(stmt.trimmed().size() + stmt.indexOf(stmt.trimmed()));
    e->setCursorPosition(line, col);
    e->setFocus();
    QTest::keyClicks(e->viewport(), " * Scal(f)");
    QTRY_COMPARE(w.diagnostics()->rowCount(), 1);
    QVERIFY(w.diagnostics()->index(0, DiagnosticsModel::MessageColumn).data().toString()
                .contains("unknown tensor or function 'Scal'"));
    long begin = w.diagnostics()->index(0, 0).data(DiagnosticsModel::RangeBeginRole).toLongLong();
    QVERIFY(indicator_at(e, SourceEditor::kErrorIndicator, begin) != 0);
    QCOMPARE(indicator_at(e, SourceEditor::kErrorIndicator, 0), 0);
    screenshot(&w, "main_window_error");

    // Clicking the problem selects the offending token in the editor.
    QTableView* view = w.problems_view();
    QRect cell = view->visualRect(view->model()->index(0, DiagnosticsModel::MessageColumn));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(e->selectedText(), QStringLiteral("Scal"));

    // Fix it: the squiggle and the entry disappear.
    e->setText(text);
    QTRY_COMPARE(w.diagnostics()->rowCount(), 0);
    QCOMPARE(indicator_at(e, SourceEditor::kErrorIndicator, begin), 0);
  }

  void non_ascii_comments_keep_ranges_exact() {
    MainWindow w;
    w.set_source("u.tc", QStringLiteral("# größe — ünïcode\ndef f(float(N) A) -> (O) { O(i) = A(i) * Bx(i) }\n"));
    QTRY_COMPARE(w.diagnostics()->rowCount(), 1);
    long begin = w.diagnostics()->index(0, 0).data(DiagnosticsModel::RangeBeginRole).toLongLong();
    w.editor()->select_bytes(uint32_t(begin), uint32_t(begin + 2));
    QCOMPARE(w.editor()->selectedText(), QStringLiteral("Bx"));
  }
};

QTEST_MAIN(MainWindowTest)
#include "main_window_test.moc"
