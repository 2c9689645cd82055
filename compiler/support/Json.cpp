#include "support/Json.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdio>

namespace tcs {

std::string json_escape(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  return out + "\"";
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

void JsonWriter::begin_object() { separate(); out_ += '{'; first_.push_back(true); }
void JsonWriter::end_object() { out_ += '}'; first_.pop_back(); }
void JsonWriter::begin_array() { separate(); out_ += '['; first_.push_back(true); }
void JsonWriter::end_array() { out_ += ']'; first_.pop_back(); }

void JsonWriter::key(std::string_view k) {
  separate();
  out_ += json_escape(k);
  out_ += ':';
  after_key_ = true;
}

void JsonWriter::value(std::string_view s) { separate(); out_ += json_escape(s); }
void JsonWriter::value(int64_t v) { separate(); out_ += std::to_string(v); }
void JsonWriter::value(bool v) { separate(); out_ += v ? "true" : "false"; }
void JsonWriter::null() { separate(); out_ += "null"; }

void JsonWriter::value(double v) {
  separate();
  if (!std::isfinite(v)) {  // JSON has no inf or nan
    out_ += "null";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  out_ += buf;
}

}  // namespace tcs
