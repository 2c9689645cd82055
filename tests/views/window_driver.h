#pragma once
// What every window test does: wait for the compiler, find a menu action, read an
// editor indicator, save a screenshot when $TCS_SCREENSHOT_DIR is set. One home for these, so the tests agree on
// what "idle" means.
#include <QAction>
#include <QDir>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

#include "views/MainWindow.h"
#include "views/editor/SourceEditor.h"
#include "views/service/CompileService.h"

namespace tcs::test {

constexpr int kWaitMs = 60000;  // a debug or sanitizer build compiles slowly

inline void screenshot(QWidget* w, const QString& name) {
  QString dir = qEnvironmentVariable("TCS_SCREENSHOT_DIR");
  if (dir.isEmpty()) return;
  QDir().mkpath(dir);
  QVERIFY(w->grab().save(dir + "/" + name + ".png"));
}

// The menu action with this text, searched through every menu.
inline QAction* menu_action(MainWindow& w, const QString& text) {
  for (QAction* a : w.findChildren<QAction*>())
    if (a->text() == text) return a;
  return nullptr;
}

// Waits until the newest job has delivered its final result.
inline bool wait_idle(MainWindow& w) {
  return QTest::qWaitFor([&] { return w.idle() && w.outcome() && w.outcome()->final; }, kWaitMs);
}

// The value of an editor indicator (an error squiggle, a linked statement) at a byte.
inline int indicator_at(SourceEditor* e, int indicator, long pos) {
  return int(e->SendScintilla(QsciScintilla::SCI_INDICATORVALUEAT, indicator, pos));
}

inline QString example_path(const char* name) { return QStringLiteral(TCS_EXAMPLES_DIR) + "/" + name; }

// Settings go to a test location and start empty: each run is a first launch.
inline void start_from_first_launch(const char* test_name) {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName("TC Studio Tests");
  QCoreApplication::setApplicationName(test_name);
  QSettings().clear();
}

// The window at `size`, on screen, with an example compiled.
inline bool show_example(MainWindow& w, const char* example, QSize size) {
  w.resize(size);
  w.show();
  return QTest::qWaitForWindowExposed(&w) && w.open_file(example_path(example)) && wait_idle(w);
}

}  // namespace tcs::test
