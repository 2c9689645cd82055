#include "lang/Builtins.h"

#include <cmath>
#include <numbers>

namespace tcs {
namespace {

constexpr double kPi = std::numbers::pi;

// erfinv has no std:: counterpart: Newton steps on erf from a logarithmic first guess.
double erfinv_impl(double y) {
  if (y <= -1) return y == -1 ? -HUGE_VAL : NAN;
  if (y >= 1) return y == 1 ? HUGE_VAL : NAN;
  double w = -std::log((1 - y) * (1 + y));
  double x = std::copysign(std::sqrt(std::max(0.0, w - std::log(w + 1e-300) * 0.5)), y) * 0.7;
  if (std::fabs(y) < 0.5) x = y * std::sqrt(kPi) / 2;
  for (int i = 0; i < 60; ++i) {
    double err = std::erf(x) - y;
    double step = err / (2 / std::sqrt(kPi) * std::exp(-x * x));
    x -= step;
    if (std::fabs(step) <= 1e-16 * std::max(1.0, std::fabs(x))) break;
  }
  return x;
}

double d_acos(double x) { return std::acos(x); }
double d_acosh(double x) { return std::acosh(x); }
double d_asin(double x) { return std::asin(x); }
double d_asinh(double x) { return std::asinh(x); }
double d_atan(double x) { return std::atan(x); }
double d_atanh(double x) { return std::atanh(x); }
double d_cbrt(double x) { return std::cbrt(x); }
double d_ceil(double x) { return std::ceil(x); }
double d_cos(double x) { return std::cos(x); }
double d_cosh(double x) { return std::cosh(x); }
double d_cospi(double x) { return std::cos(kPi * x); }
double d_erf(double x) { return std::erf(x); }
double d_erfc(double x) { return std::erfc(x); }
double d_erfinv(double x) { return erfinv_impl(x); }
double d_erfcinv(double x) { return erfinv_impl(1 - x); }
double d_erfcx(double x) { return std::exp(x * x) * std::erfc(x); }
double d_exp(double x) { return std::exp(x); }
double d_exp10(double x) { return std::pow(10.0, x); }
double d_exp2(double x) { return std::exp2(x); }
double d_expm1(double x) { return std::expm1(x); }
double d_fabs(double x) { return std::fabs(x); }
double d_floor(double x) { return std::floor(x); }
double d_j0(double x) { return ::j0(x); }
double d_j1(double x) { return ::j1(x); }
double d_lgamma(double x) { return std::lgamma(x); }
double d_log(double x) { return std::log(x); }
double d_log10(double x) { return std::log10(x); }
double d_log1p(double x) { return std::log1p(x); }
double d_log2(double x) { return std::log2(x); }
double d_logb(double x) { return std::logb(x); }
double d_nearbyint(double x) { return std::nearbyint(x); }
double d_normcdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }
double d_normcdfinv(double x) { return -std::numbers::sqrt2 * erfinv_impl(1 - 2 * x); }
double d_rcbrt(double x) { return 1 / std::cbrt(x); }
double d_rint(double x) { return std::rint(x); }
double d_round(double x) { return std::round(x); }
double d_rsqrt(double x) { return 1 / std::sqrt(x); }
double d_sin(double x) { return std::sin(x); }
double d_sinh(double x) { return std::sinh(x); }
double d_sinpi(double x) { return std::sin(kPi * x); }
double d_sqrt(double x) { return std::sqrt(x); }
double d_tan(double x) { return std::tan(x); }
double d_tanh(double x) { return std::tanh(x); }
double d_tgamma(double x) { return std::tgamma(x); }
double d_trunc(double x) { return std::trunc(x); }
double d_y0(double x) { return ::y0(x); }
double d_y1(double x) { return ::y1(x); }

double d_atan2(double a, double b) { return std::atan2(a, b); }
double d_copysign(double a, double b) { return std::copysign(a, b); }
double d_fdim(double a, double b) { return std::fdim(a, b); }
double d_fdivide(double a, double b) { return a / b; }
double d_fmax(double a, double b) { return std::fmax(a, b); }
double d_fmin(double a, double b) { return std::fmin(a, b); }
double d_fmod(double a, double b) { return std::fmod(a, b); }
double d_hypot(double a, double b) { return std::hypot(a, b); }
double d_pow(double a, double b) { return std::pow(a, b); }
double d_remainder(double a, double b) { return std::remainder(a, b); }

double d_fma(double a, double b, double c) { return std::fma(a, b, c); }

double d_nextafter(double a, double b) { return std::nextafter(a, b); }  // the interpreter steps in the result type
double d_rhypot(double a, double b) { return 1 / std::hypot(a, b); }
double d_norm3d(double a, double b, double c) { return std::sqrt(a * a + b * b + c * c); }
double d_rnorm3d(double a, double b, double c) { return 1 / std::sqrt(a * a + b * b + c * c); }
double d_norm4d(double a, double b, double c, double d) { return std::sqrt(a * a + b * b + c * c + d * d); }
double d_rnorm4d(double a, double b, double c, double d) { return 1 / std::sqrt(a * a + b * b + c * c + d * d); }

// Modified Bessel functions of the first kind by their power series (the C text and an
// exported object use the same series): sum of (x/2)^(2k+n) / (k! (k+n)!).
double bessel_i(int n, double x) {
  double h = x / 2, term = n == 0 ? 1 : h, sum = term;
  for (int k = 1; k < 1000; ++k) {
    term *= h * h / (double(k) * double(k + n));
    sum += term;
    if (std::fabs(term) <= 1e-17 * std::fabs(sum)) break;
  }
  return sum;
}
double d_cyl_bessel_i0(double x) { return bessel_i(0, x); }
double d_cyl_bessel_i1(double x) { return bessel_i(1, x); }

// Sorted by name so lookups can be binary searches and listings are alphabetical.
constexpr Builtin kBuiltins[] = {
    {"acos", 1, d_acos},       {"acosh", 1, d_acosh},
    {"asin", 1, d_asin},       {"asinh", 1, d_asinh},
    {"atan", 1, d_atan},       {"atan2", 2, nullptr, d_atan2},
    {"atanh", 1, d_atanh},     {"cbrt", 1, d_cbrt},
    {"ceil", 1, d_ceil},       {"copysign", 2, nullptr, d_copysign},
    {"cos", 1, d_cos},         {"cosh", 1, d_cosh},
    {"cospi", 1, d_cospi},     {"cyl_bessel_i0", 1, d_cyl_bessel_i0},
    {"cyl_bessel_i1", 1, d_cyl_bessel_i1}, {"erf", 1, d_erf},
    {"erfc", 1, d_erfc},       {"erfcinv", 1, d_erfcinv},
    {"erfcx", 1, d_erfcx},     {"erfinv", 1, d_erfinv},
    {"exp", 1, d_exp},         {"exp10", 1, d_exp10},
    {"exp2", 1, d_exp2},       {"expm1", 1, d_expm1},
    {"fabs", 1, d_fabs},       {"fdim", 2, nullptr, d_fdim},
    {"fdivide", 2, nullptr, d_fdivide},
    {"floor", 1, d_floor},     {"fma", 3, nullptr, nullptr, d_fma},
    {"fmax", 2, nullptr, d_fmax}, {"fmin", 2, nullptr, d_fmin},
    {"fmod", 2, nullptr, d_fmod}, {"hypot", 2, nullptr, d_hypot},
    {"j0", 1, d_j0},           {"j1", 1, d_j1},
    {"lgamma", 1, d_lgamma},   {"log", 1, d_log},
    {"log10", 1, d_log10},     {"log1p", 1, d_log1p},
    {"log2", 1, d_log2},       {"logb", 1, d_logb},
    {"nearbyint", 1, d_nearbyint}, {"nextafter", 2, nullptr, d_nextafter},
    {"norm3d", 3, nullptr, nullptr, d_norm3d}, {"norm4d", 4, nullptr, nullptr, nullptr, d_norm4d},
    {"normcdf", 1, d_normcdf},
    {"normcdfinv", 1, d_normcdfinv}, {"pow", 2, nullptr, d_pow},
    {"rcbrt", 1, d_rcbrt},     {"remainder", 2, nullptr, d_remainder},
    {"rhypot", 2, nullptr, d_rhypot},
    {"rnorm3d", 3, nullptr, nullptr, d_rnorm3d}, {"rnorm4d", 4, nullptr, nullptr, nullptr, d_rnorm4d},
    {"rint", 1, d_rint},       {"round", 1, d_round},
    {"rsqrt", 1, d_rsqrt},     {"sin", 1, d_sin},
    {"sinh", 1, d_sinh},       {"sinpi", 1, d_sinpi},
    {"sqrt", 1, d_sqrt},       {"tan", 1, d_tan},
    {"tanh", 1, d_tanh},       {"tgamma", 1, d_tgamma},
    {"trunc", 1, d_trunc},     {"y0", 1, d_y0},
    {"y1", 1, d_y1},
};

}  // namespace

std::span<const Builtin> builtins() { return kBuiltins; }

const Builtin* builtin_find(std::string_view name) {
  for (const Builtin& b : kBuiltins)
    if (b.name == name) return &b;
  return nullptr;
}

int builtin_index(const Builtin* b) { return int(b - kBuiltins); }

}  // namespace tcs
