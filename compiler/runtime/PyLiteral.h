#pragma once
// The small subset of Python literal syntax that NumPy writes into .npy headers:
// strings, integers, True/False/None, tuples, lists and dicts with string keys.
// Lists and nesting are parsed so that a structured dtype's descr (a list of tuples) can
// be recognised and refused with a useful message, not reported as a syntax error.
#include <string>
#include <string_view>
#include <vector>

#include "support/Expected.h"

namespace tcs {

struct PyValue {
  enum class Kind { String, Integer, Bool, None, Tuple, List, Dict };
  Kind kind = Kind::None;
  std::string text;            // String: contents; Integer: digits with sign
  bool flag = false;           // Bool
  std::vector<PyValue> items;     // Tuple, List; Dict: the values
  std::vector<std::string> keys;  // Dict: the keys, in file order, parallel to items
};

// `text` must hold one literal, optionally surrounded by whitespace. Errors read
// "malformed header: <what> at offset <n>". Nesting deeper than 32 levels is refused
// so that hostile input cannot exhaust the stack.
Expected<PyValue> py_literal_parse(std::string_view text);

}  // namespace tcs
