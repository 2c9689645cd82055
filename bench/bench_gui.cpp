// The IDE's speed targets (issue 4), measured on the real window:
//  - keystroke to updated schedule and C views: a key event typed into the editor until
//    the C pane and the schedule pane show the compiler's result for the new text, median
//    over many keystrokes, on the matmul and conv2d examples (target <= 100 ms);
//  - resident memory of the idle app with an example loaded (target <= 250 MB);
//  - launch to first window: `tcstudio --quit-when-shown` from spawn to exit, median of
//    several launches (target <= 1.5 s).
// Prints a table and exits 1 when a target is missed. Runs offscreen unless a display
// is set (QT_QPA_PLATFORM decides).
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QKeyEvent>
#include <QProcess>
#include <QTest>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "views/code/CodeView.h"
#include "views/service/CompileService.h"
#include "views/MainWindow.h"
#include "views/editor/SourceEditor.h"

using namespace tcs;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

double resident_mb() {
  QFile f(QStringLiteral("/proc/self/status"));
  if (!f.open(QIODevice::ReadOnly)) return 0;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024.0;
  return 0;
}

bool wait_idle(MainWindow& w) {
  return QTest::qWaitFor([&] { return w.idle() && w.outcome() && w.outcome()->final; }, 60000);
}

struct Keystrokes {
  double median_ms = 0, p90_ms = 0;
  double compile_ms = 0;  // median of the compiler's own phases (check to C) in those jobs
  int samples = 0;
};

// Types characters at the end of the first comment line, one at a time: each one changes
// the text, so each is a full recompile. The clock stops when the views show the result
// compiled from exactly the text on screen (the service's first, pre-LLVM delivery).
Keystrokes measure_keystrokes(MainWindow& w, int count) {
  SourceEditor* e = w.editor();
  std::vector<double> times, compile;
  for (int i = 0; i < count; ++i) {
    if (!wait_idle(w)) break;
    QTest::qWait(50);  // the user pauses; the LLVM phases of the last job are done
    e->setCursorPosition(0, int(e->text(0).trimmed().size()));
    QElapsedTimer clock;
    bool done = false;
    auto conn = QObject::connect(&w, &MainWindow::outcome_shown, [&](bool) {
      const CompileOutcome* o = w.outcome();
      if (done || !o || !o->result || o->checked->file.text() != e->text().toStdString()) return;
      done = true;
      double sum = 0;
      for (const PhaseTime& t : o->timings) sum += t.phase.rfind("llvm", 0) == 0 || t.phase == "asm" ? 0 : t.milliseconds;
      compile.push_back(sum);
    });
    clock.start();
    QKeyEvent press(QEvent::KeyPress, i % 2 ? Qt::Key_Backspace : Qt::Key_X, Qt::NoModifier, i % 2 ? QString() : "x");
    QKeyEvent release(QEvent::KeyRelease, i % 2 ? Qt::Key_Backspace : Qt::Key_X, Qt::NoModifier, i % 2 ? QString() : "x");
    QApplication::sendEvent(e, &press);
    QApplication::sendEvent(e, &release);
    bool ok = QTest::qWaitFor([&] { return done; }, 60000);
    double ms = double(clock.nsecsElapsed()) / 1e6;
    QObject::disconnect(conn);
    if (!ok) break;
    times.push_back(ms);
  }
  Keystrokes k;
  k.samples = int(times.size());
  k.median_ms = median(times);
  k.compile_ms = median(compile);
  std::sort(times.begin(), times.end());
  k.p90_ms = times.empty() ? 0 : times[std::min(times.size() - 1, size_t(0.9 * double(times.size())))];
  return k;
}

double measure_launch(int launches) {
  std::vector<double> times;
  for (int i = 0; i < launches; ++i) {
    QProcess p;
    QElapsedTimer clock;
    clock.start();
    p.start(QStringLiteral(TCS_STUDIO_BINARY), {QStringLiteral("--quit-when-shown")});
    if (!p.waitForFinished(30000) || p.exitCode() != 0) {
      std::fprintf(stderr, "tcstudio --quit-when-shown failed: %s\n", p.readAllStandardError().constData());
      return -1;
    }
    times.push_back(double(clock.nsecsElapsed()) / 1e6);
  }
  return median(times);
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("TC Studio Bench"));
  QApplication::setApplicationName(QStringLiteral("bench_gui"));
  int keystrokes = argc > 1 && QByteArray(argv[1]) == "--quick" ? 7 : 31;
  bool ok = true;
  std::printf("TC Studio GUI speed (platform %s)\n\n", qPrintable(QGuiApplication::platformName()));
  std::printf("%-34s %10s %10s %8s %10s  %s\n", "measure", "median", "p90", "samples", "target", "ratio");

  double idle_mb = 0;
  for (const char* example : {"matmul", "conv2d"}) {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    w.resize(1400, 860);
    if (!w.open_file(QStringLiteral(TCS_EXAMPLES_DIR "/%1.tc").arg(example))) return 2;
    w.show();
    if (!QTest::qWaitForWindowExposed(&w) || !wait_idle(w)) return 2;
    Keystrokes k = measure_keystrokes(w, keystrokes);
    bool met = k.samples > 0 && k.median_ms <= 100;
    ok &= met;
    std::printf("%-34s %8.1f ms %7.1f ms %8d %7s ms  %.2f %s\n", (std::string("keystroke -> C + schedule, ") + example).c_str(),
                k.median_ms, k.p90_ms, k.samples, "100", k.median_ms / 100, met ? "" : "MISSED");
    std::printf("%-34s %8.1f ms\n", "  of which the compiler (check..C)", k.compile_ms);
    if (std::string(example) == "matmul") {
      w.editor()->setModified(false);
      QTest::qWait(1000);  // idle: nothing compiling, nothing pending
      idle_mb = resident_mb();
    }
    w.editor()->setModified(false);
  }
  bool mem_met = idle_mb > 0 && idle_mb <= 250;
  ok &= mem_met;
  std::printf("%-34s %8.1f MB %10s %8d %7s MB  %.2f %s\n", "idle resident memory (matmul open)", idle_mb, "", 1, "250",
              idle_mb / 250, mem_met ? "" : "MISSED");
  double launch = measure_launch(5);
  bool launch_met = launch > 0 && launch <= 1500;
  ok &= launch_met;
  std::printf("%-34s %8.1f ms %10s %8d %7s ms  %.2f %s\n", "launch to first window", launch, "", 5, "1500",
              launch / 1500, launch_met ? "" : "MISSED");
  return ok ? 0 : 1;
}
