// Issue 11's defects, each as a user met it: the options panel after an invalid edit, a
// refused run, stale results, the sizes table, and the small things. Each test failed on
// the code before its fix.
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

#include "views/code/CodeView.h"
#include "views/models/SizesModel.h"
#include "views/panels/OptionsPanel.h"
#include "window_driver.h"

using namespace tcs;
using namespace tcs::test;

namespace {

QString examples(const char* name) { return QStringLiteral(TCS_EXAMPLES_DIR) + "/" + name; }

// Types into a list field as a user would: replace the text, then leave the field.
void edit_field(OptionsPanel* panel, const char* name, const QString& text) {
  auto* edit = qobject_cast<QLineEdit*>(panel->field_widget(name));
  QVERIFY(edit);
  edit->setText(text);
  emit edit->editingFinished();
}

QLabel* options_error(MainWindow& w) { return w.options()->findChild<QLabel*>("optionsError"); }

}  // namespace

class DailyUseTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("TC Studio Tests");
    QCoreApplication::setApplicationName("daily_use_test");
    QSettings().clear();
  }

  // Defect 2: after an invalid tile edit, edits that make the options valid again were
  // not applied; the fields, the JSON and the error disagreed until a preset was picked.
  void options_panel_recovers_from_an_invalid_edit() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(w.open_file(examples("attention.tc")));
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
};

QTEST_MAIN(DailyUseTest)
#include "daily_use_test.moc"
