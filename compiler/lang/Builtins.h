#pragma once
// The builtin math functions of the language (LANGUAGE.md §3): CUDA's single-precision
// math library by name (every function Tensor Comprehensions accepts), with fixed arity. Each carries its reference implementation in
// double precision, which the interpreter rounds to the result type.
#include <span>
#include <string_view>

namespace tcs {

struct Builtin {
  std::string_view name;
  int arity;
  double (*fn1)(double) = nullptr;
  double (*fn2)(double, double) = nullptr;
  double (*fn3)(double, double, double) = nullptr;
  double (*fn4)(double, double, double, double) = nullptr;
};

std::span<const Builtin> builtins();
const Builtin* builtin_find(std::string_view name);
int builtin_index(const Builtin* b);

}  // namespace tcs
