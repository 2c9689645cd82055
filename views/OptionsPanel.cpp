#include "OptionsPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QVBoxLayout>
#include <optional>

#include "poly/MappingOptions.h"

namespace tcs {

namespace {

const char* kCustom = "custom";

QString join_sizes(const std::vector<int64_t>& v) {
  QStringList parts;
  for (int64_t x : v) parts << QString::number(x);
  return parts.join(", ");
}

// "32, 32, 8" -> sizes; nullopt when a part is not a positive integer.
std::optional<std::vector<int64_t>> parse_sizes(const QString& text) {
  std::vector<int64_t> out;
  for (const QString& part : text.split(',', Qt::SkipEmptyParts)) {
    bool ok = false;
    qlonglong v = part.trimmed().toLongLong(&ok);
    if (!ok || v < 1) return std::nullopt;
    out.push_back(v);
  }
  return out;
}

}  // namespace

OptionsPanel::OptionsPanel(QWidget* parent) : QWidget(parent) {
  preset_ = new QComboBox(this);
  preset_->setObjectName(QStringLiteral("preset"));
  for (const std::string& p : mapping_preset_names()) preset_->addItem(QString::fromStdString(p));
  preset_->addItem(QString::fromLatin1(kCustom));
  preset_->setCurrentText(QStringLiteral("default"));
  fusion_ = new QComboBox(this);
  for (FusionStrategy f : {FusionStrategy::Max, FusionStrategy::Preserve3Coincident, FusionStrategy::Min})
    fusion_->addItem(QString::fromStdString(std::string(fusion_strategy_name(f))), int(f));
  tile_ = new QLineEdit(this);
  tile_->setObjectName(QStringLiteral("tile"));
  tile_->setPlaceholderText(tr("no tiling"));
  tile_->setToolTip(tr("Cache tile sizes, outer loop first, comma-separated"));
  register_tile_ = new QLineEdit(this);
  register_tile_->setPlaceholderText(tr("none"));
  parallel_ = new QCheckBox(tr("threads"), this);
  vectorize_ = new QCheckBox(tr("vectors"), this);
  width_ = new QSpinBox(this);
  width_->setRange(1, 64);
  unroll_ = new QSpinBox(this);
  unroll_->setRange(1, 64);
  json_ = new QPlainTextEdit(this);
  json_->setObjectName(QStringLiteral("optionsJson"));
  json_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  json_->setLineWrapMode(QPlainTextEdit::NoWrap);
  error_ = new QLabel(this);
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: #c02020"));
  error_->hide();

  auto* form = new QFormLayout;
  form->addRow(tr("Preset"), preset_);
  form->addRow(tr("Fusion"), fusion_);
  form->addRow(tr("Tiles"), tile_);
  form->addRow(tr("Register tile"), register_tile_);
  auto* flags = new QHBoxLayout;
  flags->addWidget(parallel_);
  flags->addWidget(vectorize_);
  flags->addWidget(width_);
  form->addRow(tr("CPU"), flags);
  form->addRow(tr("Unroll"), unroll_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(new QLabel(tr("Options as JSON:"), this));
  layout->addWidget(json_, 1);
  layout->addWidget(error_);

  connect(preset_, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    if (filling_ || name == QLatin1String(kCustom)) return;
    custom_json_.clear();
    emit options_changed();
  });
  connect(fusion_, &QComboBox::currentIndexChanged, this, &OptionsPanel::field_edited);
  connect(tile_, &QLineEdit::editingFinished, this, &OptionsPanel::field_edited);
  connect(register_tile_, &QLineEdit::editingFinished, this, &OptionsPanel::field_edited);
  connect(parallel_, &QCheckBox::toggled, this, &OptionsPanel::field_edited);
  connect(vectorize_, &QCheckBox::toggled, this, &OptionsPanel::field_edited);
  connect(width_, &QSpinBox::valueChanged, this, &OptionsPanel::field_edited);
  connect(unroll_, &QSpinBox::valueChanged, this, &OptionsPanel::field_edited);
  connect(json_, &QPlainTextEdit::textChanged, this, &OptionsPanel::json_edited);
}

std::string OptionsPanel::preset() const {
  QString p = preset_->currentText();
  return p == QLatin1String(kCustom) ? std::string("default") : p.toStdString();
}

void OptionsPanel::set_preset(const QString& name) { preset_->setCurrentText(name); }

void OptionsPanel::set_custom_json(const std::string& json) {
  custom_json_ = json;
  filling_ = true;
  preset_->setCurrentText(QString::fromLatin1(kCustom));
  json_->setPlainText(QString::fromStdString(json));
  filling_ = false;
  emit options_changed();
}

void OptionsPanel::fill_fields(const MappingOptions& o) {
  filling_ = true;
  fusion_->setCurrentIndex(fusion_->findData(int(o.outer_fusion)));
  tile_->setText(join_sizes(o.tile));
  register_tile_->setText(join_sizes(o.register_tile));
  parallel_->setChecked(o.cpu.parallel);
  vectorize_->setChecked(o.cpu.vectorize);
  width_->setValue(o.cpu.vector_width);
  width_->setEnabled(o.cpu.vectorize);
  unroll_->setValue(o.unroll);
  filling_ = false;
}

void OptionsPanel::show_used(const std::string& json) {
  used_json_ = json;
  auto o = mapping_options_from_json(json);
  if (o) fill_fields(*o);
  if (custom_json_.empty() && json_->toPlainText().toStdString() != json) {
    filling_ = true;
    json_->setPlainText(QString::fromStdString(json));
    filling_ = false;
  }
  show_error({});
}

void OptionsPanel::show_error(const QString& message) {
  error_->setText(message);
  error_->setVisible(!message.isEmpty());
}

// A field changed: apply it to the options in effect and switch to custom.
void OptionsPanel::field_edited() {
  if (filling_) return;
  auto base = mapping_options_from_json(custom_json_.empty() ? used_json_ : custom_json_);
  if (!base) return;
  MappingOptions o = *base;
  o.outer_fusion = FusionStrategy(fusion_->currentData().toInt());
  auto tile = parse_sizes(tile_->text()), reg = parse_sizes(register_tile_->text());
  if (!tile || !reg) {
    show_error(tr("Tile sizes are positive integers separated by commas"));
    return;
  }
  o.tile = *tile;
  o.register_tile = *reg;
  o.cpu.parallel = parallel_->isChecked();
  o.cpu.vectorize = vectorize_->isChecked();
  o.cpu.vector_width = width_->value();
  o.unroll = unroll_->value();
  width_->setEnabled(o.cpu.vectorize);
  std::string json = mapping_options_to_json(o);
  if (json == (custom_json_.empty() ? used_json_ : custom_json_)) return;
  set_custom_json(json);
}

void OptionsPanel::json_edited() {
  if (filling_) return;
  custom_json_ = json_->toPlainText().toStdString();
  filling_ = true;
  preset_->setCurrentText(QString::fromLatin1(kCustom));
  filling_ = false;
  emit options_changed();
}

}  // namespace tcs
