#include "views/editor/SavedOptions.h"

#include <QComboBox>
#include <QPlainTextEdit>
#include <QTimer>

#include <string_view>

#include "lang/Frontend.h"
#include "views/editor/SourceEditor.h"
#include "views/panels/OptionsPanel.h"

namespace tcs {

namespace {

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Where the def named `entry` (empty: the first def) starts: "def" first on its line.
std::optional<size_t> def_offset(std::string_view text, const std::string& entry) {
  for (size_t line = 0; line < text.size();) {
    size_t eol = text.find('\n', line);
    if (eol == std::string_view::npos) eol = text.size();
    size_t at = text.find_first_not_of(" \t", line);
    if (at < eol && text.substr(at, 3) == "def" && at + 3 < eol && !is_word(text[at + 3])) {
      size_t name = text.find_first_not_of(" \t", at + 3);
      size_t end = name;
      while (end < eol && is_word(text[end])) ++end;
      if (entry.empty() || text.substr(name, end - name) == entry) return at;
    }
    line = eol + 1;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> saved_options(const SourceEditor* editor, const std::string& entry) {
  std::string text = editor->text().toStdString();
  auto def = def_offset(text, entry);
  if (!def) return std::nullopt;
  OptionsHeader h = options_header(text, *def);
  return h.found ? h.value : std::string();
}

bool write_saved_options(SourceEditor* editor, const std::string& entry, const std::string& value) {
  std::string text = editor->text().toStdString();
  auto def = def_offset(text, entry);
  if (!def) return false;
  OptionsHeader h = options_header(text, *def);
  if ((h.found ? h.value : std::string()) == value) return false;
  // Byte positions: the editor works in UTF-8, as the front end does.
  size_t begin = h.begin, end = h.end;
  std::string replacement = options_header_line(value);
  if (!h.found) replacement += "\n";                        // a new line above the def
  else if (value.empty() && end < text.size()) ++end;  // the line goes, its newline too
  if (value.empty()) replacement.clear();
  editor->beginUndoAction();
  editor->SendScintilla(QsciScintilla::SCI_SETTARGETRANGE, static_cast<unsigned long>(begin), static_cast<long>(end));
  editor->SendScintilla(QsciScintilla::SCI_REPLACETARGET, static_cast<unsigned long>(replacement.size()), replacement.c_str());
  editor->endUndoAction();
  return true;
}

DocumentOptions::DocumentOptions(SourceEditor* editor, OptionsPanel* panel, QComboBox* entry, QObject* parent)
    : QObject(parent), editor_(editor), panel_(panel), entry_(entry), pause_(new QTimer(this)) {
  pause_->setSingleShot(true);
  pause_->setInterval(700);
  connect(pause_, &QTimer::timeout, this, &DocumentOptions::write);
  // Our own write compiles once when done (a replace reports the text changed twice: its
  // deletion and its insertion).
  connect(editor_, &QsciScintilla::textChanged, this, [this] {
    if (syncing_) return;
    read();
    emit compile();
  });
  connect(panel_, &OptionsPanel::options_changed, this, &DocumentOptions::panel_changed);
  connect(entry_, &QComboBox::currentTextChanged, this, [this] {
    if (read()) emit compile();  // another def's saved options
  });
}

bool DocumentOptions::pending() const { return pause_->isActive(); }

void DocumentOptions::apply(const MappingOptions& options) {
  pause_->stop();
  panel_->set_custom_json(mapping_options_to_json(options));  // -> panel_changed
}

void DocumentOptions::panel_changed() {
  if (syncing_) return;
  // JSON typed in the panel compiles at once and is written when the typing pauses, so the
  // document's undo history gets one step per pause, not one per key.
  if (panel_->json_edit()->hasFocus()) {
    pause_->start();
    emit compile();
    return;
  }
  write();
}

void DocumentOptions::write() {
  pause_->stop();
  if (std::optional<std::string> value = panel_->saved_value()) {
    syncing_ = true;
    write_saved_options(editor_, entry_->currentText().toStdString(), *value);
    syncing_ = false;
  }
  emit compile();
}

bool DocumentOptions::read() {
  if (pause_->isActive()) return false;  // the panel holds newer options than the document
  auto saved = saved_options(editor_, entry_->currentText().toStdString());
  if (!saved) return false;
  std::optional<std::string> shown = panel_->saved_value();
  if (shown && *shown == *saved) return false;
  syncing_ = true;
  panel_->show_saved(*saved);
  syncing_ = false;
  return true;
}

}  // namespace tcs
