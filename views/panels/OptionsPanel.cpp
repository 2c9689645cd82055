#include "views/panels/OptionsPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QVBoxLayout>

#include "options/OptionsSchema.h"

namespace tcs {

namespace {

const char* kCustom = "custom";

// "[32, 32, 8]" <-> "32, 32, 8": list fields are edited without their brackets.
QString strip_brackets(const std::string& json) {
  QString s = QString::fromStdString(json);
  if (s.startsWith('[') && s.endsWith(']')) s = s.mid(1, s.size() - 2);
  return s;
}

QString label_of(const OptionField& f) {
  std::string n = f.group.empty() ? f.name : f.name.substr(f.group.size() + 1);
  return QString::fromStdString(n);
}

}  // namespace

OptionsPanel::OptionsPanel(QWidget* parent) : QWidget(parent) {
  preset_ = new QComboBox(this);
  preset_->setObjectName(QStringLiteral("preset"));
  for (const std::string& p : mapping_preset_names()) preset_->addItem(QString::fromStdString(p));
  preset_->addItem(QString::fromLatin1(kCustom));
  preset_->setCurrentText(QStringLiteral("default"));

  auto* form = new QFormLayout;
  form->addRow(tr("Preset"), preset_);
  std::string group = "-";
  for (const OptionField& f : option_fields()) {
    if (f.group != group) {
      group = f.group;
      if (!group.empty()) {
        auto* heading = new QLabel(QStringLiteral("<b>%1</b>").arg(QString::fromStdString(group)), this);
        form->addRow(heading);
      }
    }
    QWidget* w = nullptr;
    switch (f.type) {
      case OptionType::Bool: w = new QCheckBox(this); break;
      case OptionType::Int:
        if (f.power_of_two) {
          auto* box = new QComboBox(this);
          for (int64_t x = std::max<int64_t>(1, f.min); x <= f.max; x *= 2) box->addItem(QString::number(x));
          w = box;
        } else {
          auto* spin = new QSpinBox(this);
          spin->setRange(int(f.min), int(f.max));
          w = spin;
        }
        break;
      case OptionType::Choice: {
        auto* box = new QComboBox(this);
        for (const std::string& c : f.choices) box->addItem(QString::fromStdString(c));
        w = box;
        break;
      }
      case OptionType::Sizes:
      case OptionType::Permutation:
      case OptionType::PackList: {
        auto* edit = new QLineEdit(this);
        edit->setPlaceholderText(f.type == OptionType::Sizes ? tr("none") : tr("as scheduled"));
        if (f.type == OptionType::PackList) edit->setPlaceholderText(tr("none"));
        w = edit;
        break;
      }
    }
    w->setObjectName(QString::fromStdString(f.name));
    w->setToolTip(QStringLiteral("%1\n%2: %3")
                      .arg(QString::fromStdString(f.meaning), QString::fromStdString(f.name),
                           QString::fromStdString(option_allowed(f))));
    form->addRow(label_of(f), w);
    fields_.push_back({&f, w});
  }

  json_ = new QPlainTextEdit(this);
  json_->setObjectName(QStringLiteral("optionsJson"));
  json_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  json_->setLineWrapMode(QPlainTextEdit::NoWrap);
  error_ = new QLabel(this);
  error_->setObjectName(QStringLiteral("optionsError"));
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: #c02020"));
  error_->hide();

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
  for (const FieldWidget& fw : fields_) {
    auto edited = [this, fw] { field_edited(fw); };
    if (auto* c = qobject_cast<QCheckBox*>(fw.widget)) connect(c, &QCheckBox::toggled, this, edited);
    else if (auto* b = qobject_cast<QComboBox*>(fw.widget)) connect(b, &QComboBox::currentIndexChanged, this, edited);
    else if (auto* s = qobject_cast<QSpinBox*>(fw.widget)) connect(s, &QSpinBox::valueChanged, this, edited);
    else if (auto* e = qobject_cast<QLineEdit*>(fw.widget)) connect(e, &QLineEdit::editingFinished, this, edited);
  }
  connect(json_, &QPlainTextEdit::textChanged, this, &OptionsPanel::json_edited);
}

QLineEdit* OptionsPanel::tile_edit() const { return qobject_cast<QLineEdit*>(field_widget("tile")); }

QWidget* OptionsPanel::field_widget(const std::string& name) const {
  for (const FieldWidget& fw : fields_)
    if (fw.field->name == name) return fw.widget;
  return nullptr;
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

void OptionsPanel::show_saved(const std::string& value) {
  filling_ = true;
  if (value.rfind('{', 0) == 0) {
    custom_json_ = value;
    preset_->setCurrentText(QString::fromLatin1(kCustom));
    auto read = mapping_options_read_json(value);
    if (read) fill_fields(*read);
    filling_ = true;  // fill_fields ends its own filling
    json_->setPlainText(QString::fromStdString(read ? mapping_options_to_json(*read) : value));
  } else {
    custom_json_.clear();
    QString name = value.empty() ? QStringLiteral("default") : QString::fromStdString(value);
    preset_->setCurrentText(name);
    if (preset_->currentText() != name)
      show_error(tr("The file's saved options name no preset: '%1'").arg(name));
  }
  filling_ = false;
}

std::optional<std::string> OptionsPanel::saved_value() const {
  if (!custom_json_.empty()) {
    auto line = options_json_line(custom_json_);
    if (!line) return std::nullopt;
    return *line;
  }
  std::string p = preset();
  return p == "default" ? std::string() : p;
}

void OptionsPanel::fill_fields(const MappingOptions& o) {
  filling_ = true;
  shown_ = o;
  for (const FieldWidget& fw : fields_) {
    std::string v = option_get(o, *fw.field);
    if (auto* c = qobject_cast<QCheckBox*>(fw.widget)) c->setChecked(v == "true");
    else if (auto* s = qobject_cast<QSpinBox*>(fw.widget)) s->setValue(QString::fromStdString(v).toInt());
    else if (auto* b = qobject_cast<QComboBox*>(fw.widget)) b->setCurrentText(QString::fromStdString(v).remove('"'));
    else if (auto* e = qobject_cast<QLineEdit*>(fw.widget)) e->setText(strip_brackets(v));
  }
  filling_ = false;
}

std::string OptionsPanel::widget_value(const FieldWidget& fw) const {
  if (auto* c = qobject_cast<QCheckBox*>(fw.widget)) return c->isChecked() ? "true" : "false";
  if (auto* s = qobject_cast<QSpinBox*>(fw.widget)) return std::to_string(s->value());
  if (auto* b = qobject_cast<QComboBox*>(fw.widget))
    return fw.field->type == OptionType::Choice ? "\"" + b->currentText().toStdString() + "\"" : b->currentText().toStdString();
  auto* e = qobject_cast<QLineEdit*>(fw.widget);
  return "[" + e->text().trimmed().toStdString() + "]";
}

void OptionsPanel::show_used(const std::string& json) {
  auto o = mapping_options_from_json(json);
  if (o) fill_fields(*o);
  if (custom_json_.empty() && json_->toPlainText().toStdString() != json) {
    filling_ = true;
    json_->setPlainText(QString::fromStdString(json));
    filling_ = false;
  }
  show_error({});
}

void OptionsPanel::set_available(bool available) {
  if (available == isEnabled()) return;
  setEnabled(available);
  show_error(available ? QString() : tr("The file has no def: options apply to the def being compiled."));
}

void OptionsPanel::show_error(const QString& message) {
  error_->setText(message);
  error_->setVisible(!message.isEmpty());
}

// A field changed: apply it to the options shown (valid as a whole or not) and switch to
// custom; the compile that follows reports what the fields together break.
void OptionsPanel::field_edited(const FieldWidget& fw) {
  if (filling_) return;
  Status s = option_set(shown_, *fw.field, widget_value(fw));
  if (!s) {
    show_error(QString::fromStdString(s.error()));
    return;
  }
  std::string json = mapping_options_to_json(shown_);
  if (json == custom_json_) return;
  set_custom_json(json);
}

// The JSON changed: the fields follow it as far as it reads (a field edit then applies to
// what the JSON says, not to the options before it), and the compile reports the rest.
void OptionsPanel::json_edited() {
  if (filling_) return;
  custom_json_ = json_->toPlainText().toStdString();
  if (auto read = mapping_options_read_json(custom_json_)) fill_fields(*read);
  filling_ = true;
  preset_->setCurrentText(QString::fromLatin1(kCustom));
  filling_ = false;
  emit options_changed();
}

}  // namespace tcs
