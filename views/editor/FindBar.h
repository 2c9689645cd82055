#pragma once
// Find and replace under the editor (Ctrl+F, Ctrl+H), Escape closes it.
#include <QWidget>

class QCheckBox;
class QLineEdit;
class QsciScintilla;

namespace tcs {

class FindBar : public QWidget {
  Q_OBJECT
 public:
  FindBar(QsciScintilla* editor, QWidget* parent = nullptr);

  void open_find();
  void open_replace();
  bool find_next(bool forward = true);
  int replace_all();

  QLineEdit* find_edit() const { return find_; }
  QLineEdit* replace_edit() const { return replace_; }

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void replace_one();

  QsciScintilla* editor_;
  QLineEdit* find_;
  QLineEdit* replace_;
  QCheckBox* case_;
  QWidget* replace_row_;
};

}  // namespace tcs
