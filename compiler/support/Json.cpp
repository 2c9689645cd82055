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

// ---- Parsing ---------------------------------------------------------------------------

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& [k, v] : object)
    if (k == key) return &v;
  return nullptr;
}

std::string_view JsonValue::kind_name(Kind k) {
  switch (k) {
    case Kind::Null: return "null";
    case Kind::Bool: return "a boolean";
    case Kind::Number: return "a number";
    case Kind::String: return "a string";
    case Kind::Array: return "an array";
    case Kind::Object: return "an object";
  }
  return "?";
}

namespace {

struct JsonSyntaxError {
  size_t at;
  std::string message;
};

// Recursive descent over the whole text; depth is bounded so hostile input cannot
// exhaust the stack.
class JsonParser {
 public:
  explicit JsonParser(std::string_view t) : t_(t) {}

  JsonValue document() {
    JsonValue v = value(0);
    skip_space();
    if (p_ < t_.size()) fail("unexpected text after the JSON value");
    return v;
  }

  std::pair<int, int> line_col(size_t at) const {
    int line = 1, col = 1;
    for (size_t i = 0; i < at && i < t_.size(); ++i) {
      if (t_[i] == '\n') ++line, col = 1;
      else if ((static_cast<unsigned char>(t_[i]) & 0xC0) != 0x80) ++col;
    }
    return {line, col};
  }

 private:
  [[noreturn]] void fail(std::string m) { throw JsonSyntaxError{p_, std::move(m)}; }

  void skip_space() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\t' || t_[p_] == '\n' || t_[p_] == '\r')) ++p_;
  }

  JsonValue value(int depth) {
    if (depth > 200) fail("nesting deeper than 200 levels");
    skip_space();
    if (p_ >= t_.size()) fail("unexpected end of input, expected a value");
    JsonValue v;
    auto [line, col] = line_col(p_);
    v.line = line, v.column = col;
    char c = t_[p_];
    if (c == '{') {
      v.kind = JsonValue::Kind::Object;
      ++p_;
      skip_space();
      if (p_ < t_.size() && t_[p_] == '}') return ++p_, v;
      while (true) {
        skip_space();
        if (p_ >= t_.size() || t_[p_] != '"') fail("expected a string key in the object");
        std::string k = string_body();
        for (const JsonMember& m : v.object)
          if (m.key == k) fail("duplicate key \"" + k + "\"");
        skip_space();
        if (p_ >= t_.size() || t_[p_] != ':') fail("expected ':' after the key \"" + k + "\"");
        ++p_;
        JsonValue member = value(depth + 1);
        v.object.push_back(JsonMember{std::move(k), std::move(member)});
        skip_space();
        if (p_ < t_.size() && t_[p_] == ',') { ++p_; continue; }
        if (p_ < t_.size() && t_[p_] == '}') { ++p_; return v; }
        fail("expected ',' or '}' after an object member");
      }
    }
    if (c == '[') {
      v.kind = JsonValue::Kind::Array;
      ++p_;
      skip_space();
      if (p_ < t_.size() && t_[p_] == ']') return ++p_, v;
      while (true) {
        v.array.push_back(value(depth + 1));
        skip_space();
        if (p_ < t_.size() && t_[p_] == ',') { ++p_; continue; }
        if (p_ < t_.size() && t_[p_] == ']') { ++p_; return v; }
        fail("expected ',' or ']' after an array element");
      }
    }
    if (c == '"') {
      v.kind = JsonValue::Kind::String;
      v.string = string_body();
      return v;
    }
    if (literal("true")) { v.kind = JsonValue::Kind::Bool; v.boolean = true; return v; }
    if (literal("false")) { v.kind = JsonValue::Kind::Bool; return v; }
    if (literal("null")) return v;
    if (c == '-' || (c >= '0' && c <= '9')) return number(v);
    fail(std::string("unexpected character '") + c + "'");
  }

  bool literal(std::string_view w) {
    if (t_.substr(p_, w.size()) != w) return false;
    p_ += w.size();
    return true;
  }

  JsonValue number(JsonValue v) {
    size_t start = p_;
    bool integral = true;
    if (t_[p_] == '-') ++p_;
    auto digits = [&] {
      size_t s = p_;
      while (p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9') ++p_;
      if (p_ == s) fail("expected a digit");
    };
    digits();
    if (p_ < t_.size() && t_[p_] == '.') { integral = false; ++p_; digits(); }
    if (p_ < t_.size() && (t_[p_] == 'e' || t_[p_] == 'E')) {
      integral = false;
      ++p_;
      if (p_ < t_.size() && (t_[p_] == '+' || t_[p_] == '-')) ++p_;
      digits();
    }
    std::string text(t_.substr(start, p_ - start));
    v.kind = JsonValue::Kind::Number;
    v.number = std::strtod(text.c_str(), nullptr);
    if (integral) {
      errno = 0;
      long long i = std::strtoll(text.c_str(), nullptr, 10);
      if (errno == 0) v.is_integer = true, v.integer = i;
    }
    return v;
  }

  std::string string_body() {
    ++p_;  // the opening quote
    std::string out;
    while (true) {
      if (p_ >= t_.size()) fail("unterminated string");
      char c = t_[p_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character inside a string");
      if (c != '\\') { out += c; continue; }
      if (p_ >= t_.size()) fail("unterminated string");
      char e = t_[p_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00) {
            if (!literal("\\u")) fail("unpaired surrogate in \\u escape");
            uint32_t lo = hex4();
            if (lo < 0xDC00 || lo >= 0xE000) fail("unpaired surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default: --p_; fail(std::string("unknown escape '\\") + e + "'");
      }
    }
  }

  uint32_t hex4() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      if (p_ >= t_.size()) fail("truncated \\u escape");
      char c = t_[p_++];
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) fail("bad hex digit in \\u escape");
      v = v * 16 + uint32_t(d);
    }
    return v;
  }

  static void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6)), out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 0x3F)), out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18)), out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F)), out += char(0x80 | (cp & 0x3F));
    }
  }

  std::string_view t_;
  size_t p_ = 0;
};

}  // namespace

Expected<JsonValue> json_parse(std::string_view text) {
  JsonParser parser(text);
  try {
    return parser.document();
  } catch (const JsonSyntaxError& e) {
    auto [line, col] = parser.line_col(e.at);
    return Error{ErrorKind::Options, "line " + std::to_string(line) + ", column " + std::to_string(col) + ": " + e.message};
  }
}

}  // namespace tcs
