#pragma once
// A value or an error a user can act on. Bad user input (files, sizes, options) never
// throws across the library boundary: it comes back as an Expected holding an Error.
// The error's kind says what went wrong and where to report it (the IDE puts an options
// error beside the options panel, a sizes error beside the sizes table); callers branch
// on the kind, never on the message's text.
#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace tcs {

enum class ErrorKind {
  Source,        // the .tc text: no such def, a def with errors
  Sizes,         // sizes or shapes: missing, contradicting, impossible, too large
  Options,       // mapping options: JSON, a field out of range, one this kernel refuses
  InputFile,     // a file the user named: missing, unreadable, malformed (.tc, .npy, .json)
  Cancelled,     // a newer job superseded this one
  RuntimeFault,  // a kernel ran and failed: data-dependent subscript, division by zero
  Cache,         // a tuning cache file: corrupt, locked, read-only, newer or not ours
  Internal,      // our own bug or a broken toolchain (LLVM, isl): not the user's input
};

// "source", "sizes", "options", "input file", "cancelled", "runtime fault", "cache", "internal".
std::string_view error_kind_name(ErrorKind kind);

struct Error {
  ErrorKind kind = ErrorKind::Internal;
  std::string message;
};

template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}
  Expected(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() { assert(ok()); return std::get<0>(v_); }
  const T& value() const { assert(ok()); return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // The error as a whole, to pass on unchanged: `if (!x) return x.failure();`.
  const Error& failure() const { assert(!ok()); return std::get<1>(v_); }
  const std::string& error() const { return failure().message; }
  ErrorKind error_kind() const { return failure().kind; }

 private:
  std::variant<T, Error> v_;
};

// The same error with more context in front: "while reading X: " + message.
inline Error error_prefixed(const Error& e, std::string_view prefix) {
  return Error{e.kind, std::string(prefix) + e.message};
}

// For operations that return nothing but may fail.
struct Unit {};
using Status = Expected<Unit>;
inline Status success() { return Unit{}; }

}  // namespace tcs
