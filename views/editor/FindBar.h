#pragma once
// Find and replace under the editor (Ctrl+F, Ctrl+H), Escape closes it. It searches the
// text pane that last had the focus: the editor or a read-only code pane (where Replace
// is off).
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
  // The pane searched from now on.
  void set_target(QsciScintilla* target);
  QsciScintilla* target() const { return editor_; }

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
