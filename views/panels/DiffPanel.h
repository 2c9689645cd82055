#pragma once
// Compares two results: pin the current one as A, change options (or sizes), and see B,
// the live result, beside it — the chosen text in two aligned columns (removed lines on
// the left, added on the right), the options that differ, each side's compile time and,
// once run (Ctrl+R), its measured time, and whether the two schedules are equivalent
// (isl equality of the schedule maps).
#include <QWidget>
#include <array>
#include <memory>
#include <string>

#include "views/panels/LineDiff.h"

class QComboBox;
class QLabel;
class QPushButton;
class QsciScintilla;

namespace tcs {

class CompileService;
struct CompileOutcome;

class DiffPanel : public QWidget {
  Q_OBJECT
 public:
  enum Text { C, LlvmIr, Assembly, Schedule, TextCount };

  explicit DiffPanel(QWidget* parent = nullptr);

  void set_current(std::shared_ptr<const CompileOutcome> outcome);
  // Follows the compile service: every result with code becomes the live side B.
  void follow(CompileService* service);
  void pin();  // the current result becomes A
  void set_dark(bool dark);

  const std::vector<DiffLine>& lines() const { return lines_; }
  QString summary() const;
  // The options that differ and the times of both sides.
  QString details() const;
  QsciScintilla* side(int which) const { return which == 0 ? left_ : right_; }

 private:
  struct Side {
    bool valid = false;
    std::array<std::string, TextCount> texts;
    std::string schedule;  // isl text
    std::string options;   // JSON
    double compile_ms = 0;
    double run_ms = -1, gflops = 0;  // run_ms < 0: not run
    std::shared_ptr<const CompileOutcome> outcome;
  };
  void refresh();
  QString describe(const Side& s) const;

  Side pinned_, current_;
  // isl's verdict for the last pair of schedules compared (each outcome arrives twice).
  std::string compared_a_, compared_b_;
  QString schedules_verdict_;
  std::vector<DiffLine> lines_;
  QComboBox* which_;
  QPushButton* pin_;
  QLabel* summary_;
  QLabel* details_;
  QsciScintilla* left_;
  QsciScintilla* right_;
};

}  // namespace tcs
