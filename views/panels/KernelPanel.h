#pragma once
// The Kernel dock: which def to compile, its sizes (the header's defaults, overridable)
// and the mapping options. It follows the compile service itself (the file's defs, the
// sizes and options the compiler used, an options error beside the options) and says
// `changed` when the user picks another entry, size or option.
#include <QWidget>
#include <memory>

class QComboBox;
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

 signals:
  void changed();

 private:
  void show_outcome(const CompileOutcome& o);

  QComboBox* entry_;
  SizesModel* sizes_;
  QTableView* sizes_view_;
  OptionsPanel* options_;
};

}  // namespace tcs
