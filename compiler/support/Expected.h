#pragma once
// A value or a message a user can act on. Bad user input (files, sizes, options) never
// throws across the library boundary: it comes back as an Expected holding an error.
#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace tcs {

struct Error {
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

  const std::string& error() const { assert(!ok()); return std::get<1>(v_).message; }

 private:
  std::variant<T, Error> v_;
};

// For operations that return nothing but may fail.
struct Unit {};
using Status = Expected<Unit>;
inline Status success() { return Unit{}; }

}  // namespace tcs
