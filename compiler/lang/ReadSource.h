#pragma once
// Reading a .tc file from disk: the whole file, or a refusal that says why. Both the CLI
// and the IDE read through here, so neither can show (and later save) less than the
// file holds: a NUL byte, bytes that are not UTF-8 or a file too large for a
// comprehension refuse it with the position of the first offending byte.
#include <cstdint>
#include <string>
#include <string_view>

#include "support/Expected.h"

namespace tcs {

// Larger than any comprehension; a file past this is almost certainly not one.
inline constexpr int64_t kMaxSourceBytes = 16 << 20;

// The text of the file at `path` (ErrorKind::InputFile when it cannot be read or is not
// comprehension text).
Expected<std::string> read_source_file(const std::string& path);

// Why `text` cannot be a comprehension's source ("" when it can): a NUL byte or a byte
// sequence that is not UTF-8, with its line and column. `name` starts the message.
std::string source_text_problem(const std::string& name, std::string_view text);

}  // namespace tcs
