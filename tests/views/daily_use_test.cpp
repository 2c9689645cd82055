// Issue 11's defects, each as a user met it: the options panel after an invalid edit, a
// refused run, stale results, the sizes table, and the small things. Each test failed on
// the code before its fix.
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QTemporaryDir>
#include <QElapsedTimer>
#include <QTimer>
#include <QToolTip>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QScrollBar>
#include <QHeaderView>
#include <QtTest>

#include "views/code/CodeView.h"
#include "views/editor/FindBar.h"
#include "views/editor/SourceEditor.h"
#include "views/models/DiagnosticsModel.h"
#include "views/models/SizesModel.h"
#include "views/panels/OptionsPanel.h"
#include "views/panels/RunPanel.h"
#include "window_driver.h"

using namespace tcs;
using namespace tcs::test;

namespace {

// Types into a list field as a user would: replace the text, then leave the field.
void edit_field(OptionsPanel* panel, const char* name, const QString& text) {
  auto* edit = qobject_cast<QLineEdit*>(panel->field_widget(name));
  QVERIFY(edit);
  edit->setText(text);
  emit edit->editingFinished();
}

void set_size(MainWindow& w, const QString& name, int value) {
  for (int r = 0; r < w.sizes()->rowCount(); ++r)
    if (w.sizes()->index(r, 0).data().toString() == name) {
      QVERIFY(w.sizes()->setData(w.sizes()->index(r, SizesModel::ValueColumn), value));
      return;
    }
  QFAIL(qPrintable("no size " + name));
}

QLabel* options_error(MainWindow& w) { return w.options()->findChild<QLabel*>("optionsError"); }

}  // namespace

class DailyUseTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    start_from_first_launch("daily_use_test");
    QCoreApplication::setAttribute(Qt::AA_DontUseNativeDialogs);  // Qt's own, which a test can drive
  }

  // Defect 2: after an invalid tile edit, edits that make the options valid again were
  // not applied; the fields, the JSON and the error disagreed until a preset was picked.
  void options_panel_recovers_from_an_invalid_edit() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(w.open_file(example_path("attention.tc")));
    QVERIFY(wait_idle(w));
    QVERIFY(!w.outcome()->error);
    OptionsPanel* panel = w.options();
    edit_field(panel, "tile", "1, 8, 8, 8");
    QVERIFY(wait_idle(w));
    QVERIFY(w.outcome()->failed(ErrorKind::Options));
    QVERIFY(options_error(w)->isVisibleTo(panel));
    QVERIFY2(options_error(w)->text().contains("registerTile"), qPrintable(options_error(w)->text()));
    // Every field, the JSON and the error say the same thing: tile is 1, 8, 8, 8.
    QCOMPARE(panel->tile_edit()->text(), QStringLiteral("1, 8, 8, 8"));
    QVERIFY(panel->json_edit()->toPlainText().contains("1, 8, 8, 8"));

    // Make them valid again through another field: the edit applies to what is shown.
    edit_field(panel, "registerTile", "1, 8, 8");
    QVERIFY(wait_idle(w));
    QVERIFY2(!w.outcome()->error, w.outcome()->error_message().c_str());
    QVERIFY(w.outcome()->options_json.find("\"tile\": [1, 8, 8, 8]") != std::string::npos);
    QVERIFY(w.outcome()->options_json.find("\"registerTile\": [1, 8, 8]") != std::string::npos);
    QVERIFY(!options_error(w)->isVisibleTo(panel));
    QCOMPARE(panel->tile_edit()->text(), QStringLiteral("1, 8, 8, 8"));
    QVERIFY(panel->json_edit()->toPlainText().contains("\"registerTile\": [1, 8, 8]"));

    // Break it and mend it through the same field.
    edit_field(panel, "registerTile", "1, 8, 64");
    QVERIFY(wait_idle(w));
    QVERIFY(w.outcome()->failed(ErrorKind::Options));
    edit_field(panel, "tile", "1, 8, 64, 8");
    QVERIFY(wait_idle(w));
    QVERIFY2(!w.outcome()->error, w.outcome()->error_message().c_str());
    QVERIFY(panel->json_edit()->toPlainText().contains("\"registerTile\": [1, 8, 64]"));
    QVERIFY(!options_error(w)->isVisibleTo(panel));

    // The JSON edited by hand into options that do not hold together: the fields follow
    // it, and a field edit then mends the JSON's options, not the ones before it.
    QString json = panel->json_edit()->toPlainText();
    json.replace("\"tile\": [1, 8, 64, 8]", "\"tile\": [1, 4, 16, 8]");
    panel->json_edit()->setPlainText(json);
    QVERIFY(wait_idle(w));
    QVERIFY(w.outcome()->failed(ErrorKind::Options));
    QCOMPARE(panel->tile_edit()->text(), QStringLiteral("1, 4, 16, 8"));
    edit_field(panel, "registerTile", "1, 4, 16");
    QVERIFY(wait_idle(w));
    QVERIFY2(!w.outcome()->error, w.outcome()->error_message().c_str());
    QVERIFY(w.outcome()->options_json.find("\"tile\": [1, 4, 16, 8]") != std::string::npos);
    QVERIFY(!w.status_text().contains("options: options:"));

    // A field refused on its own (not a number) says so and changes nothing else.
    std::string before = w.outcome()->options_json;
    edit_field(panel, "tile", "1, x");
    QVERIFY(options_error(w)->isVisibleTo(panel));
    QVERIFY(options_error(w)->text().contains("tile"));
    QVERIFY2(!options_error(w)->text().contains("line"), qPrintable(options_error(w)->text()));  // no JSON position for a field
    QVERIFY(wait_idle(w));
    QCOMPARE(w.outcome()->options_json, before);
  }

  // Defect 5: a run refused as too large for the interpreter replaced every code pane with
  // "// no code". Now it is timed without the check (and says so), the code stays, and a
  // running job shows its progress and can be cancelled.
  void a_large_run_is_timed_unchecked_and_can_be_cancelled() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(w.open_file(example_path("matmul.tc")));
    QVERIFY(wait_idle(w));
    for (const char* n : {"M", "K", "N"}) set_size(w, n, 512);
    QVERIFY(wait_idle(w));
    w.run_with_check();
    QVERIFY(wait_idle(w));
    QString report = w.run_report()->toPlainText();
    QVERIFY2(report.contains("not checked") && report.contains("too many for the reference interpreter"), qPrintable(report));
    QVERIFY(report.contains("GFLOP/s"));
    QVERIFY(w.code_view(MainWindow::CPane)->text().contains("void matmul"));
    QVERIFY(w.code_view(MainWindow::AsmPane)->text().contains("matmul"));
    QVERIFY(w.code_view(MainWindow::CPane)->stale_reason().isEmpty());

    // The naive loops at these sizes take a good part of a second a call: cancel midway.
    w.options()->set_preset("naive");
    QVERIFY(wait_idle(w));
    RunPanel* run = w.run_panel();
    // Click Cancel as soon as the timing starts: several calls of a third of a second each
    // are still to come, so the cancel always lands before the run could end.
    bool clicked = false;
    auto clicker = connect(w.service(), &CompileService::progress, run, [&](const QString& stage) {
      if (clicked || !stage.startsWith("timing")) return;
      clicked = true;
      QVERIFY(run->progress_label()->text().contains("timing"));
      QTest::mouseClick(run->cancel_button(), Qt::LeftButton);
    });
    w.run_with_check();
    QVERIFY(run->cancel_button()->isVisibleTo(run));
    QVERIFY(wait_idle(w));
    disconnect(clicker);
    QVERIFY(clicked);
    QCOMPARE(w.run_report()->toPlainText().trimmed(), QStringLiteral("run cancelled"));
    QVERIFY(!run->cancel_button()->isVisibleTo(run));
    QVERIFY(w.code_view(MainWindow::CPane)->text().contains("void matmul"));

    // An edit during a run replaces it: the Run dock says so and stops showing progress.
    w.run_with_check();
    w.options()->set_preset("default");
    QVERIFY(wait_idle(w));
    QVERIFY2(w.run_report()->toPlainText().contains("superseded"), qPrintable(w.run_report()->toPlainText()));
    QVERIFY(!run->cancel_button()->isVisibleTo(run));
  }

  // Defect 6: after an error, or after opening another file, panes kept old results with
  // no mark. Old output is now faded with the reason until new output replaces it.
  void stale_results_are_marked_until_replaced() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(w.open_file(example_path("matmul.tc")));
    QVERIFY(wait_idle(w));
    w.run_with_check();
    QVERIFY(wait_idle(w));
    QVERIFY(w.run_report()->toPlainText().contains("check passed"));
    QVERIFY(w.run_panel()->stale_reason().isEmpty());
    CodeView* c = w.code_view(MainWindow::CPane);
    QVERIFY(c->stale_reason().isEmpty());

    // Break the source: the code stays, faded, saying why; so does the run report.
    QString good = w.editor()->text();
    w.editor()->setText(good + "def broken(float(N) A) -> (B) { B(i) = A(i) * Q(i) }\n");
    QVERIFY(wait_idle(w));
    QVERIFY(c->text().contains("void matmul"));
    QVERIFY2(c->stale_reason().contains("the source has errors"), qPrintable(c->stale_reason()));
    QVERIFY(!w.code_view(MainWindow::AsmPane)->stale_reason().isEmpty());
    QVERIFY2(w.run_panel()->stale_reason().contains("source"), qPrintable(w.run_panel()->stale_reason()));
    QVERIFY(!w.run_report()->isEnabled());
    screenshot(&w, "stale_results");

    // Mend it: fresh code, no mark; the run describes this kernel again.
    w.editor()->setText(good);
    QVERIFY(wait_idle(w));
    QVERIFY(c->stale_reason().isEmpty());
    QVERIFY(w.run_panel()->stale_reason().isEmpty());
    // Options changed: the run report no longer describes the kernel.
    w.options()->set_preset("naive");
    QVERIFY(wait_idle(w));
    QVERIFY(w.run_panel()->stale_reason().contains("options"));

    // Another file whose def does not compile: the panes say whose code they still show.
    w.set_source("other.tc", "def other(float(N) A) -> (B) { B(i) = A(i) + Zz(i) }\n");
    QVERIFY(wait_idle(w));
    QVERIFY2(c->stale_reason().contains("matmul.tc"), qPrintable(c->stale_reason()));
    QVERIFY(!w.run_panel()->stale_reason().isEmpty());
  }

  // Defect 7: the sizes table took 0, -1 and letters while typing and reverted silently;
  // a size too large showed only in the status bar while Problems said "no problems".
  void sizes_are_validated_while_typing_and_reported_in_problems() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(w.open_file(example_path("matmul.tc")));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(wait_idle(w));
    QTableView* view = w.findChild<QTableView*>("sizes");
    QLabel* hint = w.findChild<QLabel*>("sizesHint");
    QVERIFY(view && hint);
    int k_row = -1;
    for (int r = 0; r < w.sizes()->rowCount(); ++r)
      if (w.sizes()->index(r, 0).data().toString() == "K") k_row = r;
    QModelIndex k = w.sizes()->index(k_row, SizesModel::ValueColumn);
    // Every size is visible without scrolling.
    QVERIFY(view->rowViewportPosition(w.sizes()->rowCount() - 1) + view->rowHeight(0) <= view->viewport()->height());

    // Letters and a minus sign cannot be typed, and the hint says why.
    view->setCurrentIndex(k);
    view->edit(k);
    auto* editor = view->findChild<QLineEdit*>("sizeEditor");
    QVERIFY(editor);
    editor->selectAll();
    QTest::keyClicks(editor, "-4x0");
    QCOMPARE(editor->text(), QStringLiteral("40"));
    QVERIFY2(hint->text().contains("whole number from 1"), qPrintable(hint->text()));
    QTest::keyClick(editor, Qt::Key_Return);
    QTRY_COMPARE(k.data().toLongLong(), 40);  // the delegate commits through a queued call
    QVERIFY(hint->text().isEmpty());
    QVERIFY(wait_idle(w));

    // Zero can be typed on the way to a number but is not taken: the hint says so.
    int hint_y = hint->mapTo(&w, QPoint(0, 0)).y();
    view->edit(k);
    editor = view->findChild<QLineEdit*>("sizeEditor");
    editor->selectAll();
    QTest::keyClicks(editor, "0");
    QTest::keyClick(editor, Qt::Key_Return);
    QTRY_VERIFY2(hint->text().contains("K stays 40"), qPrintable(hint->text()));
    QCOMPARE(k.data().toLongLong(), 40);
    QCOMPARE(hint->mapTo(&w, QPoint(0, 0)).y(), hint_y);  // the message did not move the form
    QTest::keyClick(editor, Qt::Key_Escape);

    // A size the kernel cannot take: Problems has it, on the def's name.
    QVERIFY(w.sizes()->setData(k, qlonglong(1) << 31));
    QVERIFY(w.sizes()->setData(w.sizes()->index(0, SizesModel::ValueColumn), qlonglong(1) << 31));
    QVERIFY(wait_idle(w));
    QVERIFY(w.outcome()->failed(ErrorKind::Sizes));
    QCOMPARE(w.diagnostics()->rowCount(), 1);
    QString message = w.diagnostics()->index(0, DiagnosticsModel::MessageColumn).data().toString();
    QVERIFY2(message.startsWith("sizes: "), qPrintable(message));
    QVERIFY(!w.status_text().contains("no problems"));
    QVERIFY2(hint->text() == QString::fromStdString(w.outcome()->error_message()), qPrintable(hint->text()));
    long begin = w.diagnostics()->index(0, 0).data(DiagnosticsModel::RangeBeginRole).toLongLong();
    QCOMPARE(w.editor()->text().mid(int(begin), 6), QStringLiteral("matmul"));
    // Back to the header's sizes: no problems.
    w.sizes()->clear_overrides();
    QVERIFY(wait_idle(w));
    QCOMPARE(w.diagnostics()->rowCount(), 0);
    QVERIFY(hint->text().isEmpty());
  }

  // The compiler's notes on the options (here a cache tile of rows that is no multiple of
  // the register tile's) reached users only through `compile --emit model`: Problems lists
  // them, on the def's name, without a squiggle, and the status bar counts them.
  void compiler_notes_are_listed_in_problems() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    w.resize(1280, 800);
    QVERIFY(w.open_file(example_path("matmul.tc")));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(wait_idle(w));
    QCOMPARE(w.diagnostics()->rowCount(), 0);  // the default makes no note
    auto options = mapping_options_from_json(
        "{\"outerScheduleFusionStrategy\": \"Min\", \"tile\": [32, 32, 32], \"registerTile\": [12, 16], "
        "\"cpu\": {\"pointLoopOrder\": [2, 0, 1], \"registerAccumulate\": true}}");
    QVERIFY(options);
    w.apply_options(*options);
    QVERIFY(wait_idle(w));
    QVERIFY(!w.outcome()->error);
    QVERIFY2(w.outcome()->options_json.find("[12, 16]") != std::string::npos, w.outcome()->options_json.c_str());
    QCOMPARE(w.diagnostics()->rowCount(), 1);
    QString severity = w.diagnostics()->index(0, DiagnosticsModel::SeverityColumn).data().toString();
    QString message = w.diagnostics()->index(0, DiagnosticsModel::MessageColumn).data().toString();
    QCOMPARE(severity, QStringLiteral("note"));
    QVERIFY2(message.startsWith("compiler: tile[0] (32) is not a multiple of registerTile[0] (12)"), qPrintable(message));
    long begin = w.diagnostics()->index(0, 0).data(DiagnosticsModel::RangeBeginRole).toLongLong();
    QCOMPARE(w.editor()->text().mid(int(begin), 6), QStringLiteral("matmul"));
    QVERIFY2(w.status_text().contains("no problems, 1 note(s)"), qPrintable(w.status_text()));
    screenshot(&w, "compiler_notes");
  }

  // The Run dock times as the user asks, as the CLI's run --threads and --cold do: the
  // benchmark's figures are one thread's with cold caches, and a warm run of every core
  // could not be compared with them.
  void run_settings_reach_the_measurement() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(w.open_file(example_path("matmul.tc")));
    QVERIFY(wait_idle(w));
    RunPanel* run = w.run_panel();
    QCOMPARE(run->threads_box()->value(), run->threads_box()->maximum());  // every core, as the CLI
    QVERIFY(!run->cold_box()->isChecked());
    w.run_with_check();
    QVERIFY(wait_idle(w));
    QVERIFY2(w.run_report()->toPlainText().contains("warm caches"), qPrintable(w.run_report()->toPlainText()));
    QCOMPARE(w.outcome()->run->threads, run->threads_box()->maximum());

    run->threads_box()->setValue(1);
    run->cold_box()->setChecked(true);
    w.run_with_check();
    QVERIFY(wait_idle(w));
    QString report = w.run_report()->toPlainText();
    QVERIFY2(report.contains("check passed") && report.contains("1 thread(s), cold caches"), qPrintable(report));
    QCOMPARE(w.outcome()->run->threads, 1);
    QVERIFY(w.outcome()->run->cold_caches);
    // Changed settings grey the report until a run with them replaces it; changed back,
    // it describes them again.
    QVERIFY(run->stale_reason().isEmpty());
    run->cold_box()->setChecked(false);
    QVERIFY2(run->stale_reason().contains("run settings"), qPrintable(run->stale_reason()));
    run->cold_box()->setChecked(true);
    QVERIFY(run->stale_reason().isEmpty());
    run->threads_box()->setValue(run->threads_box()->maximum());
    QCOMPARE(run->stale_reason().isEmpty(), run->threads_box()->maximum() == 1);
  }

  // Defect 8, the small things, each as a user met it.
  void hovering_a_squiggle_shows_its_message() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.set_source("k.tc", "def f(float(N) A) -> (O) {\n  O(i) = A(i) * Bx(i)\n}\n");
    QVERIFY(wait_idle(w));
    SourceEditor* e = w.editor();
    long pos = long(e->text().toUtf8().indexOf("Bx")) + 1;
    int x = int(e->SendScintilla(QsciScintilla::SCI_POINTXFROMPOSITION, 0UL, pos));
    int y = int(e->SendScintilla(QsciScintilla::SCI_POINTYFROMPOSITION, 0UL, pos)) + 4;
    QTest::mouseMove(e->viewport(), QPoint(x - 6, y));
    QTest::mouseMove(e->viewport(), QPoint(x, y));  // the dwell starts after the mouse rests
    QTRY_VERIFY_WITH_TIMEOUT(QToolTip::isVisible(), 3000);
    QVERIFY2(QToolTip::text().contains("unknown tensor or function 'Bx'"), qPrintable(QToolTip::text()));
  }

  void each_def_takes_its_own_sizes_line() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    w.set_source("two.tc",
                 "# sizes: N=8\ndef first(float(N) A) -> (B) {\n  B(i) = A(i) + 1\n}\n"
                 "# sizes: N=24\ndef second(float(N) A) -> (B) {\n  B(i) = A(i) * 2\n}\n");
    QVERIFY(wait_idle(w));
    QCOMPARE(w.sizes()->index(0, SizesModel::ValueColumn).data().toLongLong(), 8);
    w.entry_box()->setCurrentText("second");
    QVERIFY(wait_idle(w));
    QCOMPARE(w.sizes()->index(0, SizesModel::ValueColumn).data().toLongLong(), 24);
    QVERIFY(w.code_view(MainWindow::CPane)->text().contains("N=24"));
  }

  void save_as_gives_a_bare_name_the_tc_extension() {
    QTemporaryDir dir;
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    w.set_source({}, "def f(float(N) A) -> (B) {\n  B(i) = A(i)\n}\n");
    QString seen;
    QTimer poll;  // until the dialog is up, however slow the build
    QElapsedTimer waited;
    waited.start();
    connect(&poll, &QTimer::timeout, [&] {
      QWidget* modal = QApplication::activeModalWidget();
      if (!modal && waited.elapsed() < kWaitMs) return;
      poll.stop();
      seen = modal ? modal->metaObject()->className() : "none";
      if (auto* dialog = qobject_cast<QFileDialog*>(modal)) {  // type a bare name, press Enter
        dialog->setDirectory(dir.path());
        auto* name = dialog->findChild<QLineEdit*>("fileNameEdit");
        if (!name) {
          modal->close();
          return;
        }
        name->setText("kernel");
        QMetaObject::invokeMethod(dialog, "accept", Qt::QueuedConnection);  // as the Save button does
      } else if (modal) {
        modal->close();
      }
    });
    poll.start(50);
    QAction* save_as = menu_action(w, "Save &As...");
    QVERIFY(save_as);
    save_as->trigger();
    QCOMPARE(seen, QStringLiteral("QFileDialog"));
    QVERIFY(QFileInfo::exists(dir.filePath("kernel.tc")));
    QVERIFY(!QFileInfo::exists(dir.filePath("kernel")));
    QVERIFY(w.windowTitle().contains("kernel.tc"));
  }

  void a_file_without_a_def_turns_the_options_off() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(w.open_file(example_path("matmul.tc")));
    QVERIFY(wait_idle(w));
    QVERIFY(w.options()->isEnabled());
    w.editor()->setText("# nothing here yet\n");
    QVERIFY(wait_idle(w));
    QVERIFY(!w.options()->isEnabled());
    QVERIFY(options_error(w)->text().contains("no def"));
    w.editor()->setText("def f(float(N) A) -> (B) {\n  B(i) = A(i)\n}\n");
    QVERIFY(wait_idle(w));
    QVERIFY(w.options()->isEnabled());
    QVERIFY(!options_error(w)->isVisibleTo(w.options()));
  }

  void find_searches_the_pane_that_has_the_focus() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QVERIFY(w.open_file(example_path("matmul.tc")));
    QVERIFY(wait_idle(w));
    CodeView* c = w.code_view(MainWindow::CPane);
    c->setFocus();
    QTRY_COMPARE(w.find_bar()->target(), static_cast<QsciScintilla*>(c));
    menu_action(w, "&Find...")->trigger();
    w.find_bar()->find_edit()->setText("#include <stdint.h>");  // only in the generated C
    QVERIFY(w.find_bar()->find_next(true));
    QCOMPARE(c->selectedText(), QStringLiteral("#include <stdint.h>"));
    QVERIFY(!w.editor()->hasSelectedText());
    w.editor()->setFocus();
    QTRY_COMPARE(w.find_bar()->target(), static_cast<QsciScintilla*>(w.editor()));
    w.find_bar()->find_edit()->setText("+=!");
    QVERIFY(w.find_bar()->find_next(true));
    QCOMPARE(w.editor()->selectedText(), QStringLiteral("+=!"));
  }
};

QTEST_MAIN(DailyUseTest)
#include "daily_use_test.moc"
