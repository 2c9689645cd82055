#include "lang/ReadSource.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lang/Source.h"

namespace tcs {
namespace {

// Length of the well-formed UTF-8 sequence at text[i], or 0 (RFC 3629: no overlong forms,
// no surrogates, nothing past U+10FFFF).
size_t utf8_sequence(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return k < text.size() ? uint8_t(text[k]) : uint8_t(0); };
  auto cont = [&](size_t k) { return (byte(k) & 0xC0) == 0x80; };
  uint8_t b = byte(i);
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (b >= 0xE0 && b <= 0xEF) {
    uint8_t lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
    return byte(i + 1) >= lo && byte(i + 1) <= hi && cont(i + 2) ? 3 : 0;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    uint8_t lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
    return byte(i + 1) >= lo && byte(i + 1) <= hi && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

std::string at(const std::string& name, std::string_view text, size_t offset) {
  SourceFile file(name, std::string(text.substr(0, offset + 1)));
  LineColumn lc = file.line_column(uint32_t(offset));
  return name + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column);
}

}  // namespace

std::string source_text_problem(const std::string& name, std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '\0')
      return at(name, text, i) + ": the file holds a NUL byte (at byte " + std::to_string(i) +
             "); it looks binary, not like comprehension text";
    size_t n = utf8_sequence(text, i);
    if (n == 0)
      return at(name, text, i) + ": the file is not UTF-8 text (byte " + std::to_string(i) +
             " starts no valid UTF-8 character); convert it to UTF-8 first";
    i += n;
  }
  return {};
}

Expected<std::string> read_source_file(const std::string& path) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (!ec && int64_t(size) > kMaxSourceBytes)
    return Error{ErrorKind::InputFile, path + ": the file has " + std::to_string(size) + " bytes, more than the " +
                                           std::to_string(kMaxSourceBytes >> 20) + " MiB a comprehension may have"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{ErrorKind::InputFile, "cannot open '" + path + "'"};
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Error{ErrorKind::InputFile, "cannot read '" + path + "'"};
  std::string text = std::move(ss).str();
  if (std::string problem = source_text_problem(path, text); !problem.empty())
    return Error{ErrorKind::InputFile, problem};
  return text;
}

}  // namespace tcs
