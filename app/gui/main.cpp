// tcstudio: the desktop IDE. Opens the file given on the command line, or a bundled example.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QStatusBar>
#include <QTimer>
#include <QWindow>
#include <cstdio>
#include <cstdlib>

#include "views/MainWindow.h"

#ifndef TCS_VERSION
#define TCS_VERSION "0.0.0"
#endif

// Qt aborts when no display can be opened; say what to do instead.
static bool display_available() {
  const char* platform = std::getenv("QT_QPA_PLATFORM");
  if (platform && *platform) return true;
  const char* x = std::getenv("DISPLAY");
  const char* wl = std::getenv("WAYLAND_DISPLAY");
  return (x && *x) || (wl && *wl);
}

// The bundled examples: next to the installed binary, else the source tree's copy.
static QString examples_dir() {
  QDir here(QCoreApplication::applicationDirPath());
  for (const QString& rel : {QStringLiteral("../share/tcstudio/examples"), QStringLiteral("examples")})
    if (here.exists(rel)) return here.absoluteFilePath(rel);
#ifdef TCS_EXAMPLES_DIR
  return QStringLiteral(TCS_EXAMPLES_DIR);
#else
  return {};
#endif
}

int main(int argc, char** argv) {
  if (!display_available()) {
    std::fprintf(stderr,
                 "tcstudio: no display found (DISPLAY and WAYLAND_DISPLAY are unset).\n"
                 "Run it under a virtual X server:   xvfb-run -a %s [FILE.tc]\n"
                 "or headless for tests:              QT_QPA_PLATFORM=offscreen %s [FILE.tc]\n"
                 "The command-line tool needs no display: tcstudio-cli --help\n",
                 argv[0], argv[0]);
    return 1;
  }
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("TC Studio"));
  QApplication::setOrganizationName(QStringLiteral("TC Studio"));
  QApplication::setApplicationVersion(QStringLiteral(TCS_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("TC Studio: an IDE for tensor comprehensions"));
  parser.addHelpOption();
  parser.addVersionOption();
  // For the launch benchmark: quit as soon as the window has been exposed and painted.
  QCommandLineOption quit_when_shown(QStringLiteral("quit-when-shown"),
                                     QStringLiteral("quit once the window is on screen (for timing the launch)"));
  parser.addOption(quit_when_shown);
  parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("a .tc file to open (default: the matmul example)"));
  parser.process(app);

  QString file = parser.positionalArguments().value(0);
  if (file.isEmpty()) file = examples_dir() + QStringLiteral("/matmul.tc");

  tcs::MainWindow window(examples_dir());
  QString problem;
  if (!window.open_file(file, &problem)) {
    // Nothing of the refused file is shown, so nothing of it can be saved over: the window
    // opens on an empty document and says why.
    std::fprintf(stderr, "tcstudio: %s\n", problem.toLocal8Bit().constData());
    window.set_source({}, {});
    window.statusBar()->showMessage(problem);
  }
  window.show();
  if (parser.isSet(quit_when_shown)) {
    QWindow* handle = window.windowHandle();
    auto* timer = new QTimer(&app);
    QObject::connect(timer, &QTimer::timeout, &app, [handle, &window, timer] {
      if (!handle || !handle->isExposed()) return;
      timer->stop();
      window.repaint();  // the first frame, painted
      QCoreApplication::quit();
    });
    timer->start(1);
  }
  return app.exec();
}
