#include "runtime/PyLiteral.h"

namespace tcs {

namespace {

// A recursive-descent parser; each parse_* starts at the first character of its literal.
class PyLiteralParser {
 public:
  explicit PyLiteralParser(std::string_view text) : text_(text) {}

  Expected<PyValue> parse_document() {
    Expected<PyValue> value = parse_value(0);
    if (!value) return value;
    skip_space();
    if (pos_ != text_.size()) return fail("unexpected text after the literal");
    return value;
  }

 private:
  // Deep enough for any dtype numpy writes; stops a hostile "((((..." from overflowing
  // the stack.
  static constexpr int kMaxDepth = 32;

  Error fail(const std::string& what) const {
    return Error{ErrorKind::InputFile, "malformed header: " + what + " at offset " + std::to_string(pos_)};
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

  bool take_word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Expected<PyValue> parse_value(int depth) {
    if (depth > kMaxDepth) return fail("nesting too deep");
    skip_space();
    if (pos_ >= text_.size()) return fail("unexpected end");
    char c = text_[pos_];
    if (c == '\'' || c == '"') return parse_string();
    if (c == '(') return parse_sequence(PyValue::Kind::Tuple, ')', depth);
    if (c == '[') return parse_sequence(PyValue::Kind::List, ']', depth);
    if (c == '{') return parse_dict(depth);
    if (c == '-' || c == '+' || (c >= '0' && c <= '9')) return parse_integer();
    PyValue value;  // None unless one of the words below says otherwise
    if (take_word("True")) {
      value.kind = PyValue::Kind::Bool;
      value.flag = true;
      return value;
    }
    if (take_word("False")) {
      value.kind = PyValue::Kind::Bool;
      return value;
    }
    if (take_word("None")) return value;
    return fail(std::string("unexpected character '") + c + "'");
  }

  Expected<PyValue> parse_string() {
    char quote = text_[pos_++];
    PyValue value;
    value.kind = PyValue::Kind::String;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;  // keep what follows
      value.text += text_[pos_++];
    }
    if (pos_ >= text_.size()) return fail("unterminated string");
    ++pos_;
    return value;
  }

  Expected<PyValue> parse_integer() {
    PyValue value;
    value.kind = PyValue::Kind::Integer;
    if (at('-') || at('+')) value.text += text_[pos_++];
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9')
      value.text += text_[pos_++];
    if (value.text.empty() || value.text.back() < '0' || value.text.back() > '9')
      return fail("expected digits");
    // Python 2 numpy wrote long integers as 3L.
    if (at('L') || at('l')) ++pos_;
    return value;
  }

  // "(a, b)", "(a,)", "()", "[a, b, ]": items separated by commas, trailing comma allowed.
  Expected<PyValue> parse_sequence(PyValue::Kind kind, char close, int depth) {
    ++pos_;
    PyValue value;
    value.kind = kind;
    for (;;) {
      skip_space();
      if (at(close)) break;
      Expected<PyValue> item = parse_value(depth + 1);
      if (!item) return item;
      value.items.push_back(std::move(*item));
      skip_space();
      if (at(',')) {
        ++pos_;
        continue;
      }
      if (!at(close)) return fail(std::string("expected ',' or '") + close + "'");
    }
    ++pos_;
    return value;
  }

  Expected<PyValue> parse_dict(int depth) {
    ++pos_;
    PyValue value;
    value.kind = PyValue::Kind::Dict;
    for (;;) {
      skip_space();
      if (at('}')) break;
      if (!at('\'') && !at('"')) return fail("expected a string key");
      Expected<PyValue> key = parse_string();
      if (!key) return key;
      skip_space();
      if (!at(':')) return fail("expected ':' after key '" + key->text + "'");
      ++pos_;
      Expected<PyValue> item = parse_value(depth + 1);
      if (!item) return item;
      value.keys.push_back(std::move(key->text));
      value.items.push_back(std::move(*item));
      skip_space();
      if (at(',')) {
        ++pos_;
        continue;
      }
      if (!at('}')) return fail("expected ',' or '}'");
    }
    ++pos_;
    return value;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

Expected<PyValue> py_literal_parse(std::string_view text) {
  return PyLiteralParser(text).parse_document();
}

}  // namespace tcs
