#pragma once
// The language's builtins as C source, for code that leaves the process: the readable C
// text (builtins C's math library lacks, defined static at its top) and an exported
// object's glue (every builtin the object calls, under the bundle's own prefix). Each is a
// double-precision function, like the interpreter's reference in lang/Builtins.cpp.
#include <string>
#include <string_view>

namespace tcs {

// Whether C's math library has the builtin under the same name ("erf"; "erff" for float).
bool builtin_in_libm(std::string_view name);

// The single-precision C form of a builtin libm lacks but the compiled kernel computes in
// float for float32 results (codegen/LlvmMath.cpp): "(1.0f / sqrtf(x))" for rsqrt with
// args "x". Empty for the others, which the C text computes in double through their
// definition below.
std::string c_float_builtin_call(std::string_view name, const std::string& args);

// A C definition of builtin `name` as `symbol`: "double symbol(double x) { ... }",
// preceded by "static " when `is_static`. Empty for an unknown name.
std::string c_builtin_function(std::string_view name, const std::string& symbol, bool is_static);

}  // namespace tcs
