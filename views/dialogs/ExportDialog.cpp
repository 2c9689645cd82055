#include "views/dialogs/ExportDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

namespace tcs {

ExportDialog::ExportDialog(const QString& start_dir, const QString& sizes, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Export Kernel"));
  auto* form = new QFormLayout;

  folder_ = new QLineEdit(start_dir);
  auto* browse = new QPushButton(tr("Browse..."));
  auto* row = new QHBoxLayout;
  row->addWidget(folder_, 1);
  row->addWidget(browse);
  form->addRow(tr("Folder:"), row);
  connect(browse, &QPushButton::clicked, this, [this] {
    QString dir = QFileDialog::getExistingDirectory(this, tr("Export the kernel into a folder"), folder_->text());
    if (!dir.isEmpty()) folder_->setText(dir);
  });

  fixed_ = new QRadioButton(tr("Fixed at %1").arg(sizes));
  symbolic_ = new QRadioButton(tr("Arguments of the function (tiles chosen for %1)").arg(sizes));
  fixed_->setChecked(true);
  symbolic_->setToolTip(tr("The exported function takes the sizes and runs on any sizes the kernel accepts; "
                           "it returns 1 on others. Kernels whose ranges are not affine in their sizes need fixed sizes."));
  auto* sizes_box = new QVBoxLayout;
  sizes_box->addWidget(fixed_);
  sizes_box->addWidget(symbolic_);
  form->addRow(tr("Sizes:"), sizes_box);

  cpu_ = new QComboBox;
  cpu_->setEditable(true);
  cpu_->addItems({"host", "x86-64-v2", "x86-64-v3", "x86-64-v4", "znver3", "znver4", "skylake-avx512"});
  cpu_->setToolTip(tr("The CPU the object file is compiled for (an LLVM CPU name); the C file runs anywhere"));
  form->addRow(tr("Object for CPU:"), cpu_);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  ok_ = buttons->button(QDialogButtonBox::Ok);
  ok_->setText(tr("Export"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto update = [this] { ok_->setEnabled(!folder_->text().trimmed().isEmpty() && !cpu_->currentText().trimmed().isEmpty()); };
  connect(folder_, &QLineEdit::textChanged, this, update);
  connect(cpu_, &QComboBox::currentTextChanged, this, update);
  update();

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(buttons);
}

QString ExportDialog::folder() const { return folder_->text().trimmed(); }

ExportSettings ExportDialog::settings() const {
  ExportSettings s;
  s.cpu = cpu_->currentText().trimmed().toStdString();
  s.symbolic_sizes = symbolic_->isChecked();
  return s;
}

}  // namespace tcs
