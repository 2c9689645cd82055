#pragma once
// What every window test does: wait for the compiler, find a menu action, save a
// screenshot when $TCS_SCREENSHOT_DIR is set. One home for these, so the tests agree on
// what "idle" means.
#include <QAction>
#include <QDir>
#include <QtTest>

#include "views/MainWindow.h"
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

}  // namespace tcs::test
