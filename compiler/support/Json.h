#pragma once
// A small streaming JSON writer (deterministic: fields in the order written) for the CLI's
// --json outputs and diagnostics. Reading JSON goes through nlohmann-json.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>


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


}  // namespace tcs
