#pragma once
// The mapping options saved in the document: the "# options:" line above the entry def
// (lang/Frontend's options_header), read and written through the editor so that a change
// of options is an edit like any other: undone with Ctrl+Z, saved with the file, and read
// back by the CLI.
#include <QObject>

#include <optional>
#include <string>

#include "options/MappingOptions.h"

class QComboBox;
class QTimer;

namespace tcs {

class OptionsPanel;
class SourceEditor;

// What the line says for `entry` (empty: the first def): a preset name, one line of JSON,
// or "" when there is no line; nullopt when the text has no such def.
std::optional<std::string> saved_options(const SourceEditor* editor, const std::string& entry);

// Makes the line say `value` ("" removes it) as one undoable edit; false when nothing
// changed (the same value, or no such def).
bool write_saved_options(SourceEditor* editor, const std::string& entry, const std::string& value);

// Keeps the options panel and the document's line in step for the entry the window
// compiles: a change in the panel (or one applied from a view) is written into the
// document, and a change of the document (an edit, an undo, another file, another entry)
// is shown in the panel. Says `compile` once for each change that needs compiling.
class DocumentOptions : public QObject {
  Q_OBJECT
 public:
  DocumentOptions(SourceEditor* editor, OptionsPanel* panel, QComboBox* entry, QObject* parent = nullptr);

  // Options chosen in a view: shown in the panel, written into the document.
  void apply(const MappingOptions& options);
  // JSON typed in the panel is not written yet (it is, once the typing pauses).
  bool pending() const;

 signals:
  void compile();

 private:
  void panel_changed();
  void write();
  bool read();  // true when the panel now shows other options

  SourceEditor* editor_;
  OptionsPanel* panel_;
  QComboBox* entry_;
  QTimer* pause_;
  bool syncing_ = false;  // our own change of the document or the panel is under way
};

}  // namespace tcs
