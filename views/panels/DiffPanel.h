#pragma once
// Compares the code of two option sets: pin the current result as A, change options (or
// sizes), and see what changed in B, the live result — line by line for the chosen text,
// and whether the two schedules are equivalent (isl equality of the schedule maps).
#include <QWidget>
#include <array>
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

  void set_current(const CompileOutcome& outcome);
  // Follows the compile service: every result with code becomes the live side B.
  void follow(CompileService* service);
  void pin();  // the current result becomes A
  void set_dark(bool dark);

  const std::vector<DiffLine>& lines() const { return lines_; }
  QString summary() const;

 private:
  struct Side {
    bool valid = false;
    std::array<std::string, TextCount> texts;
    std::string schedule;  // isl text
    std::string options;   // JSON
  };
  void refresh();

  Side pinned_, current_;
  // isl's verdict for the last pair of schedules compared (each outcome arrives twice).
  std::string compared_a_, compared_b_;
  QString schedules_verdict_;
  std::vector<DiffLine> lines_;
  QComboBox* which_;
  QPushButton* pin_;
  QLabel* summary_;
  QsciScintilla* view_;
};

}  // namespace tcs
