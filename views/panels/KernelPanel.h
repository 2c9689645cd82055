#pragma once
// The Kernel dock: which def to compile, its sizes (the header's defaults, overridable)
// and the mapping options. It follows the compile service itself (the file's defs, the
// sizes and options the compiler used, an options error beside the options) and says
// `changed` when the user picks another entry or size. Options changes go to the window,
// which saves them in the document (views/editor/SavedOptions.h) before compiling.
#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QTableView;

namespace tcs {

class CompileService;
class OptionsPanel;
class SizesModel;
struct CompileOutcome;

class KernelPanel : public QWidget {
  Q_OBJECT
 public:
  explicit KernelPanel(QWidget* parent = nullptr);
  void follow(CompileService* service);
  // A new document: no entry yet, no overridden sizes.
  void reset();

  QComboBox* entry() const { return entry_; }
  SizesModel* sizes() const { return sizes_; }
  OptionsPanel* options() const { return options_; }
  QTableView* sizes_view() const { return sizes_view_; }
  // Below the sizes: why a typed size was refused, or the sizes error of the last compile.
  QLabel* sizes_hint() const { return sizes_hint_; }

 signals:
  void changed();

 private:
  void show_outcome(const CompileOutcome& o);
  void fit_sizes_table();

  QComboBox* entry_;
  SizesModel* sizes_;
  QTableView* sizes_view_;
  QLabel* sizes_hint_;
  OptionsPanel* options_;
};

}  // namespace tcs
