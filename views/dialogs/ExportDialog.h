#pragma once
// File ▸ Export: where the bundle goes, whether its function takes the sizes as arguments
// or is specialised to the sizes shown, and the CPU its object is compiled for. Only
// gathers the choice; MainWindow::export_to writes the bundle.
#include <QDialog>

#include "export/Export.h"

class QComboBox;
class QLineEdit;
class QPushButton;
class QRadioButton;

namespace tcs {

class ExportDialog : public QDialog {
  Q_OBJECT
 public:
  // `sizes`: the sizes shown, "M=64 K=128 N=96", for the labels.
  ExportDialog(const QString& start_dir, const QString& sizes, QWidget* parent = nullptr);

  QString folder() const;
  ExportSettings settings() const;  // cpu and symbolic_sizes; the caller names the source

  QLineEdit* folder_edit() const { return folder_; }
  QRadioButton* symbolic_button() const { return symbolic_; }
  QComboBox* cpu_box() const { return cpu_; }

 private:
  QLineEdit* folder_;
  QRadioButton* fixed_;
  QRadioButton* symbolic_;
  QComboBox* cpu_;
  QPushButton* ok_;
};

}  // namespace tcs
