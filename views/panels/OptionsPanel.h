#pragma once
// Mapping options: a preset, one widget per field of the options table (OptionsSchema),
// and the full JSON. Editing a field or the JSON switches to "custom" options that start
// from what is shown, so a user tweaks one number of a preset instead of writing JSON
// from scratch. Widgets, ranges and tooltips all come from the table: a new field or a
// new target's group appears here without touching this file.
#include <QWidget>
#include <optional>
#include <string>
#include <vector>

#include "options/MappingOptions.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace tcs {

struct OptionField;

class OptionsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit OptionsPanel(QWidget* parent = nullptr);

  std::string preset() const;
  // Empty while a preset is selected; the custom options otherwise.
  const std::string& custom_json() const { return custom_json_; }
  void set_preset(const QString& name);
  void set_custom_json(const std::string& json);
  // The options the compiler used for the last result (fills the widgets and the JSON).
  void show_used(const std::string& json);
  void show_error(const QString& message);
  // The options saved in the file ("# options:" above the def: a preset name, one line of
  // JSON, or empty for the default preset), shown as chosen without options_changed: the
  // edit that changed the file compiles anyway.
  void show_saved(const std::string& value);
  // What the file should say for the options chosen, in the same form; nullopt while the
  // JSON being typed is not JSON yet.
  std::optional<std::string> saved_value() const;
  // Options belong to a def: with none in the file the form is off and says why.
  void set_available(bool available);

  QComboBox* preset_box() const { return preset_; }
  QLineEdit* tile_edit() const;
  QPlainTextEdit* json_edit() const { return json_; }
  // The widget of a field ("tile", "cpu.vectorWidth"), null if there is none.
  QWidget* field_widget(const std::string& name) const;

 signals:
  void options_changed();

 private:
  struct FieldWidget {
    const OptionField* field;
    QWidget* widget;
  };
  void field_edited(const FieldWidget& fw);
  void json_edited();
  void fill_fields(const MappingOptions& o);
  std::string widget_value(const FieldWidget& fw) const;

  QComboBox* preset_;
  std::vector<FieldWidget> fields_;
  QPlainTextEdit* json_;
  QLabel* error_;
  std::string custom_json_;
  MappingOptions shown_;  // what the widgets show: edits apply to it, valid or not
  bool filling_ = false;
};

}  // namespace tcs
