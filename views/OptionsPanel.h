#pragma once
// Mapping options: a preset, the key fields as widgets, and the full JSON. Editing a
// field or the JSON switches to "custom" options that start from what the compiler last
// used, so a user tweaks one number of a preset instead of writing JSON from scratch.
#include <QWidget>
#include <string>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace tcs {

struct MappingOptions;

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

  QComboBox* preset_box() const { return preset_; }
  QLineEdit* tile_edit() const { return tile_; }
  QPlainTextEdit* json_edit() const { return json_; }

 signals:
  void options_changed();

 private:
  void field_edited();
  void json_edited();
  void fill_fields(const MappingOptions& o);

  QComboBox* preset_;
  QComboBox* fusion_;
  QLineEdit* tile_;
  QLineEdit* register_tile_;
  QCheckBox* parallel_;
  QCheckBox* vectorize_;
  QSpinBox* width_;
  QSpinBox* unroll_;
  QPlainTextEdit* json_;
  QLabel* error_;
  std::string custom_json_, used_json_;
  bool filling_ = false;
};

}  // namespace tcs
