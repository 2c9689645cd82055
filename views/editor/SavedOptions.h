#pragma once
// The mapping options saved in the document: the "# options:" line above the entry def
// (lang/Frontend's options_header), read and written through the editor so that a change
// of options is an edit like any other: undone with Ctrl+Z, saved with the file, and read
// back by the CLI.
#include <optional>
#include <string>

namespace tcs {

class SourceEditor;

// What the line says for `entry` (empty: the first def): a preset name, one line of JSON,
// or "" when there is no line; nullopt when the text has no such def.
std::optional<std::string> saved_options(const SourceEditor* editor, const std::string& entry);

// Makes the line say `value` ("" removes it) as one undoable edit; false when nothing
// changed (the same value, or no such def).
bool write_saved_options(SourceEditor* editor, const std::string& entry, const std::string& value);

}  // namespace tcs
