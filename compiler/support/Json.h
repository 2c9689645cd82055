#pragma once
// A small streaming JSON writer (deterministic: fields in the order written) and a strict
// parser with line:column errors. Enough for the CLI's --json outputs and option files.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/Expected.h"

namespace tcs {

class JsonWriter {
 public:
  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void key(std::string_view k);
  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(const std::string& s) { value(std::string_view(s)); }
  void value(int64_t v);
  void value(int v) { value(int64_t(v)); }
  void value(double v);
  void value(bool v);
  void null();
  template <class T> void field(std::string_view k, const T& v) { key(k); value(v); }

  const std::string& str() const { return out_; }

 private:
  void separate();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

std::string json_escape(std::string_view s);


// A parsed JSON document, for option files and cache records. Objects keep their keys in
// the order written so messages can point at the first unknown key; numbers keep whether
// they were written as integers.
struct JsonMember;

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  bool is_integer = false;  // written without fraction or exponent, and fits int64
  int64_t integer = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::vector<JsonMember> object;
  int line = 0, column = 0;  // where the value starts (1-based)

  const JsonValue* find(std::string_view key) const;
  static std::string_view kind_name(Kind k);  // "a number", "an object", ...
};

struct JsonMember {
  std::string key;
  JsonValue value;
};

// Errors read "line 3, column 14: expected ',' or '}' after an object member".
Expected<JsonValue> json_parse(std::string_view text);

}  // namespace tcs
