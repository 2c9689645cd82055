#include "codegen/CBuiltins.h"

#include "lang/Builtins.h"

namespace tcs {

namespace {

// Bodies in terms of the arguments x, y, z; the math library provides the rest.
struct CBody {
  const char* name;
  const char* body;
};

constexpr CBody kBodies[] = {
    {"cospi", "return cos(3.14159265358979323846 * x);"},
    {"sinpi", "return sin(3.14159265358979323846 * x);"},
    {"exp10", "return pow(10.0, x);"},
    {"erfcx", "return exp(x * x) * erfc(x);"},
    {"fdivide", "return x / y;"},
    {"normcdf", "return 0.5 * erfc(-x / 1.41421356237309504880);"},
    {"rcbrt", "return 1.0 / cbrt(x);"},
    {"rsqrt", "return 1.0 / sqrt(x);"},
    {"rhypot", "return 1.0 / hypot(x, y);"},
    {"norm3d", "return sqrt(x * x + y * y + z * z);"},
    {"rnorm3d", "return 1.0 / sqrt(x * x + y * y + z * z);"},
    {"norm4d", "return sqrt(x * x + y * y + z * z + w * w);"},
    {"rnorm4d", "return 1.0 / sqrt(x * x + y * y + z * z + w * w);"},
    // The power series the interpreter sums: (x/2)^(2k+n) / (k! (k+n)!).
    {"cyl_bessel_i0",
     "double h = x / 2, term = 1, sum = 1;\n"
     "  for (int k = 1; k < 1000; ++k) {\n"
     "    term *= h * h / ((double)k * (double)k);\n"
     "    sum += term;\n"
     "    if (fabs(term) <= 1e-17 * fabs(sum)) break;\n"
     "  }\n"
     "  return sum;"},
    {"cyl_bessel_i1",
     "double h = x / 2, term = h, sum = h;\n"
     "  for (int k = 1; k < 1000; ++k) {\n"
     "    term *= h * h / ((double)k * (double)(k + 1));\n"
     "    sum += term;\n"
     "    if (fabs(term) <= 1e-17 * fabs(sum)) break;\n"
     "  }\n"
     "  return sum;"},
    // erfinv: Newton steps on erf from a logarithmic first guess, as the interpreter does.
    {"erfinv",
     "if (x <= -1) return x == -1 ? -HUGE_VAL : NAN;\n"
     "  if (x >= 1) return x == 1 ? HUGE_VAL : NAN;\n"
     "  double w = -log((1 - x) * (1 + x));\n"
     "  double r = copysign(sqrt(fmax(0.0, w - log(w + 1e-300) * 0.5)), x) * 0.7;\n"
     "  if (fabs(x) < 0.5) r = x * sqrt(3.14159265358979323846) / 2;\n"
     "  for (int i = 0; i < 60; ++i) {\n"
     "    double step = (erf(r) - x) / (2 / sqrt(3.14159265358979323846) * exp(-r * r));\n"
     "    r -= step;\n"
     "    if (fabs(step) <= 1e-16 * fmax(1.0, fabs(r))) break;\n"
     "  }\n"
     "  return r;"},
};

// Builtins defined through another builtin: their body calls `helper`'s definition.
struct CDerived {
  const char* name;
  const char* helper;
  const char* call;  // in terms of x and the helper's symbol H
};

constexpr CDerived kDerived[] = {
    {"erfcinv", "erfinv", "H(1 - x)"},
    {"normcdfinv", "erfinv", "-1.41421356237309504880 * H(1 - 2 * x)"},
};

std::string params(int arity) {
  const char* names[] = {"double x", "double y", "double z", "double w"};
  std::string s;
  for (int i = 0; i < arity; ++i) s += (i ? ", " : "") + std::string(names[i]);
  return s;
}

}  // namespace

bool builtin_in_libm(std::string_view n) {
  static const char* names[] = {"acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil",
                                "copysign", "cos", "cosh", "erf", "erfc", "exp", "exp2", "expm1", "fabs",
                                "fdim", "floor", "fma", "fmax", "fmin", "fmod", "hypot", "lgamma", "log",
                                "log10", "log1p", "log2", "logb", "nearbyint", "nextafter", "pow", "remainder", "rint",
                                "round", "sin", "sinh", "sqrt", "tan", "tanh", "tgamma", "trunc"};
  for (const char* x : names)
    if (n == x) return true;
  return false;
}

std::string c_float_builtin_call(std::string_view name, const std::string& args) {
  if (name == "rsqrt") return "(1.0f / sqrtf(" + args + "))";
  return "";
}

std::string c_builtin_function(std::string_view name, const std::string& symbol, bool is_static) {
  const Builtin* b = builtin_find(name);
  if (!b) return "";
  std::string head = std::string(is_static ? "static " : "") + "double " + symbol + "(" + params(b->arity) + ")";
  for (const CDerived& d : kDerived)
    if (name == d.name) {
      std::string helper = symbol + "_" + d.helper;
      std::string call = d.call;
      call.replace(call.find('H'), 1, helper);
      return c_builtin_function(d.helper, helper, true) + head + " { return " + call + "; }\n";
    }
  for (const CBody& c : kBodies)
    if (name == c.name) return head + " {\n  " + c.body + "\n}\n";
  // The math library's own (j0, j1, y0, y1 are POSIX).
  const char* args[] = {"", "x", "x, y", "x, y, z", "x, y, z, w"};
  return head + " { return " + std::string(name) + "(" + args[b->arity] + "); }\n";
}

}  // namespace tcs
