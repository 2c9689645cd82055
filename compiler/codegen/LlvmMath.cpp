// Math builtins as straight-line IR: no call per element, so LLVM's loop vectoriser
// turns a loop of exp or tanh into vector code, in float or in double as the tensor is.
//
// Each function reduces the argument to a small range and evaluates a polynomial there,
// the same steps in both precisions with the constants and polynomial lengths of each
// (Precision, in LlvmMathParts.h). Accuracy, measured against the C library over each
// type's range (tests/poly/float_math_test.cpp): within 4 ulp in double (5 for asinh,
// acosh and atanh, where log1p's argument rounds first), and 4e-7 relative in float but
// for tanh and erf (float only), within 2e-6. Special values
// follow C: exp(-inf) = 0, exp(+inf) = inf, log(0) = -inf, log(x < 0) = NaN, and a NaN
// argument gives NaN.
#include "codegen/LlvmMath.h"

#include "codegen/LlvmMathParts.h"

namespace tcs {
namespace math_ir {

// tanh x = sum a_k x^(2k+1): from tanh' = 1 - tanh^2, (2k + 1) a_k = -sum_{i+j=k-1} a_i a_j.
static std::vector<double> tanh_series(int terms) {
  std::vector<double> a(size_t(terms), 0.0);
  a[0] = 1.0;
  for (int k = 1; k < terms; ++k) {
    double s = 0;
    for (int i = 0; i < k; ++i) s += a[size_t(i)] * a[size_t(k - 1 - i)];
    a[size_t(k)] = -s / double(2 * k + 1);
  }
  return a;
}

// e^r 2^n for |r| <= ln2 / 2, n given as `shifted`, the bits of n + rounding_shift(),
// from just below the least subnormal to just past the largest number. e^r by its
// Taylor series. 2^n in two factors, 2^floor(n/2) and 2^ceil(n/2), each a normal
// number, so that a subnormal result is rounded once and a result past the range
// becomes inf. A factor's bits are (m + bias) << mantissa_bits; the shift's own bits
// vanish there, as it and its half end in more zero bits than sign and exponent take.
Value* Math::scaled_exp(Value* r, Value* shifted) {
  std::vector<double> taylor{1.0};
  for (int k = 1; k <= p.exp_degree; ++k) taylor.push_back(taylor.back() / k);
  Value* e = poly(r, taylor);
  Value* k = B.CreateBitCast(shifted, i);
  Value* half = B.CreateAShr(k, ci(1));
  Value* low = B.CreateBitCast(B.CreateShl(B.CreateAdd(half, ci(p.bias)), ci(p.mantissa_bits)), f);
  Value* high = B.CreateBitCast(B.CreateShl(B.CreateAdd(B.CreateSub(k, half), ci(p.bias)), ci(p.mantissa_bits)), f);
  return B.CreateFMul(B.CreateFMul(e, low), high);
}

// Past the clamps the formula itself gives 0 (float: below -103.97) and inf (above
// 88.72); a NaN goes through every step as a NaN.
Value* Math::exp(Value* x, Value* tail) {
  // x = n ln2 + r, ln2 split in two so that n ln2's high part is exact; a tail of x
  // below its last place joins r.
  Value* xc = clamp_keeping_nan(x, p.exp_lo, p.exp_hi);
  Value* shifted = fma(xc, c(1.4426950408889634), c(rounding_shift()));
  Value* n = B.CreateFSub(shifted, c(rounding_shift()));
  Value* r = fma(n, c(-p.ln2_lo), fma(n, c(-p.ln2_hi), xc));
  if (tail) r = B.CreateFAdd(r, B.CreateSelect(B.CreateFCmpOEQ(x, xc), tail, c(0.0)));  // not past the clamps
  return scaled_exp(r, shifted);
}

Value* Math::exp2(Value* x) {
  // x = n + t with |t| <= 1/2, both exact; 2^t = e^{t ln2}. Clamped where 2^n is past
  // the least subnormal (float: -151) and past the largest number (129).
  double bound = double(p.bias + p.mantissa_bits + 1);
  Value* xc = clamp_keeping_nan(x, -bound, double(p.bias + 2));
  Value* shifted = B.CreateFAdd(xc, c(rounding_shift()));
  Value* n = B.CreateFSub(shifted, c(rounding_shift()));
  Value* r = B.CreateFMul(B.CreateFSub(xc, n), c(0.6931471805599453));
  return scaled_exp(r, shifted);
}

// The logarithm in a base given by `combine`, which takes e and log m of x = m 2^e
// apart (so log2 of a power of two is exactly e). m in [sqrt(1/2), sqrt(2)); log m =
// 2 atanh(t), t = (m - 1)/(m + 1), |t| <= 0.172, by its odd series (float: to t^11).
// Subnormals are scaled up by 2^mantissa_bits first.
std::pair<Value*, Value*> Math::exponent_and_mantissa(Value* x) {
  Value* tiny = B.CreateFCmpOLT(x, c(p.min_normal));
  Value* xs = B.CreateSelect(tiny, B.CreateFMul(x, c(std::ldexp(1.0, p.mantissa_bits))), x);
  Value* bits = B.CreateBitCast(xs, i);
  // Move m into [sqrt(1/2), sqrt(2)): offset the exponent field by that of sqrt(1/2).
  Value* shifted = B.CreateSub(bits, ci(p.sqrt_half_bits));
  Value* e = B.CreateAShr(shifted, ci(p.mantissa_bits));
  Value* fraction = B.CreateAnd(shifted, ci((int64_t(1) << p.mantissa_bits) - 1));
  Value* m = B.CreateBitCast(B.CreateAdd(fraction, ci(p.sqrt_half_bits)), f);
  Value* ef = B.CreateSIToFP(e, f);
  return {B.CreateSelect(tiny, B.CreateFSub(ef, c(double(p.mantissa_bits))), ef), m};
}

Value* Math::log_in_base(Value* x, llvm::function_ref<Value*(Value*, Value*)> combine) {
  auto [ef, m] = exponent_and_mantissa(x);
  Value* t = B.CreateFDiv(B.CreateFSub(m, c(1.0)), B.CreateFAdd(m, c(1.0)));
  Value* t2 = B.CreateFMul(t, t);
  std::vector<double> atanh;
  for (int k = 0; k < p.log_terms; ++k) atanh.push_back(1.0 / double(2 * k + 1));
  Value* s = B.CreateFMul(B.CreateFMul(t, c(2.0)), poly(t2, atanh));
  Value* y = combine(ef, s);
  y = B.CreateSelect(B.CreateFCmpOEQ(x, c(INFINITY)), x, y);
  y = B.CreateSelect(B.CreateFCmpOEQ(x, c(0.0)), c(-INFINITY), y);
  return B.CreateSelect(B.CreateFCmpULT(x, c(0.0)), c(NAN), y);  // negative or NaN
}

Value* Math::log(Value* x) {
  return log_in_base(x, [&](Value* e, Value* lm) { return fma(e, c(p.ln2_hi), fma(e, c(p.ln2_lo), lm)); });
}

Value* Math::log2(Value* x) {
  return log_in_base(x, [&](Value* e, Value* lm) { return B.CreateFAdd(e, B.CreateFMul(lm, c(1.4426950408889634))); });
}

// e log10(2) in two parts, the first short enough that e times it is exact (|e| is
// below 2^11), so that log10 of a power of ten comes out exact.
Value* Math::log10(Value* x) {
  constexpr long double kLog10Of2 = 0.301029995663981195213738894724493026768L;
  double hi = std::ldexp(std::floor(std::ldexp(double(kLog10Of2), p.mantissa_bits - 11)), 11 - p.mantissa_bits);
  double lo = double(kLog10Of2 - hi);
  return log_in_base(x, [&](Value* e, Value* lm) {
    return fma(e, c(hi), fma(e, c(lo), B.CreateFMul(lm, c(0.4342944819032518))));
  });
}

// log(1 + x) with x's own precision near 0: u = 1 + x rounds, and log u is then
// corrected to first order by the part of x the sum lost, (x - (u - 1)) / u. At u = 0
// and u = inf the correction is NaN and log u is the answer; log1p(-0) is -0.
Value* Math::log1p(Value* x) {
  Value* u = B.CreateFAdd(c(1.0), x);
  Value* lu = log(u);
  Value* lost = B.CreateFDiv(B.CreateFSub(x, B.CreateFSub(u, c(1.0))), u);
  Value* edge = B.CreateOr(B.CreateFCmpOEQ(u, c(0.0)), B.CreateFCmpOEQ(u, c(INFINITY)));
  Value* y = B.CreateSelect(edge, lu, B.CreateFAdd(lu, lost));
  return B.CreateSelect(B.CreateFCmpOEQ(x, c(0.0)), x, y);
}

// e^x - 1: below ln2 / 2 in magnitude x times exp's Taylor series divided by x (no
// cancellation), beyond exp(x) - 1 (which cancels at most a factor 3.5 there).
Value* Math::expm1(Value* x) {
  std::vector<double> taylor{1.0};
  for (int k = 2; k <= p.exp_degree + 2; ++k) taylor.push_back(taylor.back() / k);
  Value* small = B.CreateFMul(x, poly(x, taylor));
  Value* big = B.CreateFSub(exp(x), c(1.0));
  Value* y = B.CreateSelect(B.CreateFCmpOLT(abs(x), c(0.34657359027997264)), small, big);  // NaN: big
  return B.CreateSelect(B.CreateFCmpOEQ(x, c(0.0)), x, y);
}

Value* Math::half_exp_abs(Value* a) {
  Value* e2 = exp(B.CreateFMul(a, c(0.5)));
  return B.CreateFMul(B.CreateFMul(e2, c(0.5)), e2);
}

Value* Math::cosh(Value* x) {
  Value* a = abs(x);
  Value* e = exp(a);
  Value* near = B.CreateFMul(B.CreateFAdd(e, B.CreateFDiv(c(1.0), e)), c(0.5));
  return B.CreateSelect(B.CreateFCmpOGT(a, c(hyperbolic_far())), half_exp_abs(a), near);
}

// sinh |x| = (e + e / (e + 1)) / 2 with e = e^|x| - 1: no cancellation near 0.
Value* Math::sinh(Value* x) {
  Value* a = abs(x);
  Value* e = expm1(a);
  Value* near = B.CreateFMul(B.CreateFAdd(e, B.CreateFDiv(e, B.CreateFAdd(e, c(1.0)))), c(0.5));
  Value* r = B.CreateSelect(B.CreateFCmpOGT(a, c(hyperbolic_far())), half_exp_abs(a), near);
  return B.CreateIntrinsic(llvm::Intrinsic::copysign, {f}, {r, x});
}

// asinh |x| = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))); where x^2 would overflow, and
// where 1 no longer counts beside it, log|x| + ln2.
Value* Math::asinh(Value* x) {
  Value* a = abs(x);
  Value* a2 = B.CreateFMul(a, a);
  Value* near = log1p(B.CreateFAdd(a, B.CreateFDiv(a2, B.CreateFAdd(c(1.0), B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, B.CreateFAdd(c(1.0), a2))))));
  Value* far = B.CreateFAdd(log(a), c(0.6931471805599453));
  Value* r = B.CreateSelect(B.CreateFCmpOGT(a, c(std::ldexp(1.0, p.mantissa_bits / 2 + 2))), far, near);
  return B.CreateIntrinsic(llvm::Intrinsic::copysign, {f}, {r, x});
}

// acosh x = log1p((x - 1) + sqrt((x - 1)(x + 1))) (x - 1 exact near 1); far, log x +
// ln2; NaN below 1.
Value* Math::acosh(Value* x) {
  Value* m = B.CreateFSub(x, c(1.0));
  Value* near = log1p(B.CreateFAdd(m, B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, B.CreateFMul(m, B.CreateFAdd(x, c(1.0))))));
  Value* far = B.CreateFAdd(log(x), c(0.6931471805599453));
  Value* r = B.CreateSelect(B.CreateFCmpOGT(x, c(std::ldexp(1.0, p.mantissa_bits / 2 + 2))), far, near);
  return B.CreateSelect(B.CreateFCmpULT(x, c(1.0)), c(NAN), r);
}

// atanh x = log1p(2|x| / (1 - |x|)) / 2, signed: +-inf at +-1, NaN past it.
Value* Math::atanh(Value* x) {
  Value* a = abs(x);
  Value* r = B.CreateFMul(log1p(B.CreateFDiv(B.CreateFMul(a, c(2.0)), B.CreateFSub(c(1.0), a))), c(0.5));
  return B.CreateIntrinsic(llvm::Intrinsic::copysign, {f}, {r, x});
}

// 10^x = e^{x ln10}, x ln10 in two parts: the product's rounding error (an FMA gives it)
// and ln10's second part join exp's reduced argument, since e^x turns an absolute error
// into a relative one (and at the edge of the range, into an overflow).
Value* Math::exp10(Value* x) {
  auto [hi, lo] = split(2.302585092994045684017991454684364208L);
  Value* t = B.CreateFMul(x, hi);
  Value* t_err = fma(x, lo, fma(x, hi, B.CreateFNeg(t)));
  Value* tail = B.CreateSelect(B.CreateFCmpOLT(abs(t_err), c(INFINITY)), t_err, c(0.0));  // NaN for an infinite x
  return exp(t, tail);
}

// hypot as the larger magnitude times sqrt(1 + r^2), r the ratio of the smaller to it,
// so nothing overflows before the result does; an infinity wins over a NaN, and two
// zeros give 0.
Value* Math::hypot(Value* x, Value* y) {
  Value* ax = abs(x);
  Value* ay = abs(y);
  Value* x_larger = B.CreateFCmpOGT(ax, ay);
  Value* big = B.CreateSelect(x_larger, ax, ay);    // a NaN in either reaches big or small
  Value* small = B.CreateSelect(x_larger, ay, ax);
  Value* r = B.CreateFDiv(small, big);
  Value* h = B.CreateFMul(big, B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, fma(r, r, c(1.0))));
  Value* zeros = B.CreateAnd(B.CreateFCmpOEQ(big, c(0.0)), B.CreateFCmpOEQ(small, c(0.0)));  // not NaN and 0
  h = B.CreateSelect(zeros, c(0.0), h);
  Value* inf = B.CreateOr(B.CreateFCmpOEQ(ax, c(INFINITY)), B.CreateFCmpOEQ(ay, c(INFINITY)));
  return B.CreateSelect(inf, c(INFINITY), h);
}

// The cube root of |x| = m 2^e: e = 3q + r with r in {0, 1, 2}, v = m 2^r in [0.7, 5.7),
// then w = v^(-1/3) by Newton's division-free step from a line through the range (six
// steps reach double's precision from its 20 %, five float's), y = v w^2, one Newton
// step on y itself for the last bits, and the result y 2^q with x's sign. Zeros,
// infinities and NaN are their own cube roots.
Value* Math::cbrt(Value* x) {
  Value* a = abs(x);
  auto [ef, m] = exponent_and_mantissa(a);
  Value* q = B.CreateUnaryIntrinsic(llvm::Intrinsic::floor, B.CreateFMul(B.CreateFAdd(ef, c(0.5)), c(1.0 / 3.0)));
  Value* r = B.CreateFSub(ef, B.CreateFMul(q, c(3.0)));  // exact: 0, 1 or 2
  Value* v = B.CreateFMul(m, B.CreateSelect(B.CreateFCmpOEQ(r, c(0.0)), c(1.0),
                                            B.CreateSelect(B.CreateFCmpOEQ(r, c(1.0)), c(2.0), c(4.0))));
  Value* w = fma(v, c(-0.1), c(1.1));
  for (int k = 0; k < (p.mantissa_bits > 23 ? 6 : 5); ++k) {
    Value* w3 = B.CreateFMul(B.CreateFMul(w, w), w);
    w = fma(B.CreateFMul(w, c(1.0 / 3.0)), fma(B.CreateFNeg(v), w3, c(1.0)), w);
  }
  Value* w2 = B.CreateFMul(w, w);
  Value* y = B.CreateFMul(v, w2);
  // y -= (y^3 - v) / (3 y^2), with 1 / y^2 = w^4.
  Value* cube_err = fma(B.CreateFMul(y, y), y, B.CreateFNeg(v));
  y = fma(B.CreateFNeg(cube_err), B.CreateFMul(B.CreateFMul(w2, w2), c(1.0 / 3.0)), y);
  Value* bits = B.CreateShl(B.CreateAdd(B.CreateFPToSI(q, i), ci(p.bias)), ci(p.mantissa_bits));
  Value* result = B.CreateFMul(y, B.CreateBitCast(bits, f));
  Value* own = B.CreateOr(B.CreateFCmpOEQ(a, c(0.0)), B.CreateFCmpUEQ(a, c(INFINITY)));  // 0, inf, NaN
  result = B.CreateSelect(own, a, result);
  return B.CreateIntrinsic(llvm::Intrinsic::copysign, {f}, {result, x});
}

// x - y where x > y, +0 otherwise, NaN with a NaN.
Value* Math::fdim(Value* x, Value* y) {
  Value* r = B.CreateSelect(B.CreateFCmpUNO(x, y), c(NAN), c(0.0));
  return B.CreateSelect(B.CreateFCmpOGT(x, y), B.CreateFSub(x, y), r);
}

Value* Math::tanh(Value* x) {
  // Small |x|: the odd Taylor series (float: below 0.625 to x^15, relative error below
  // 2e-6 at the edge, far less inside); beyond: 1 - 2 / (e^{2|x|} + 1), which cancels
  // at most a factor 2.4 there (double: from 0.3).
  Value* a = abs(x);
  Value* x2 = B.CreateFMul(x, x);
  Value* small = B.CreateFMul(x, poly(x2, tanh_series(p.tanh_terms)));
  Value* big = B.CreateFSub(c(1.0), B.CreateFDiv(c(2.0), B.CreateFAdd(exp(B.CreateFMul(a, c(2.0))), c(1.0))));
  big = B.CreateIntrinsic(llvm::Intrinsic::copysign, {f}, {big, x});
  return B.CreateSelect(B.CreateFCmpOLT(a, c(p.tanh_series_below)), small, big);  // NaN takes `big`: NaN
}

Value* Math::erf(Value* x) {
  // |x| < 0.5: 2/sqrt(pi) (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320);
  // beyond: 1 - q(s) e^{-x^2} with s = 1/(1 + 0.3275911|x|) (Abramowitz and Stegun
  // 7.1.26, absolute error 1.5e-7 where erf >= 0.52); saturates to +-1 past |x| = 4.
  Value* a = abs(x);
  Value* x2 = B.CreateFMul(x, x);
  Value* small = B.CreateFMul(B.CreateFMul(x, c(1.1283791670955126)),
                              poly(x2, {1.0, -1.0 / 3, 1.0 / 10, -1.0 / 42, 1.0 / 216, -1.0 / 1320}));
  Value* s = B.CreateFDiv(c(1.0), fma(a, c(0.3275911), c(1.0)));
  Value* q = B.CreateFMul(s, poly(s, {0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429}));
  Value* big = B.CreateFSub(c(1.0), B.CreateFMul(q, exp(B.CreateFNeg(x2))));
  big = B.CreateIntrinsic(llvm::Intrinsic::copysign, {f}, {big, x});
  return B.CreateSelect(B.CreateFCmpOLT(a, c(0.5)), small, big);
}

// x^y as C's pow, from this precision's exp and log: e^{y log|x|}, negative for a
// negative x and an odd integer y, NaN for a finite negative x and a finite y that is
// no integer;
// then C's cases where that formula gives NaN or the wrong sign: y = 0 gives 1 (even
// for a NaN x), x = 1 gives 1 (even for a NaN y), and x = -1 with an infinite y gives 1.
// (A NaN argument otherwise gives NaN, and 0, inf and the infinite y follow from
// log 0 = -inf, log inf = inf and e^{+-inf}.)
// log a for a >= 0 as hi + lo, good to about 2^-70 relative: the steps of
// log_in_base with t = (m - 1)/(m + 1) and 2t carried in two parts (the division's
// residual from an FMA), and e ln2 added by a two-sum. pow needs it: y log a reaches 709
// where the result is still a double, and its absolute error is the result's relative one.
std::pair<Value*, Value*> Math::log_two_parts(Value* a) {
  auto [ef, m] = exponent_and_mantissa(a);
  Value* num = B.CreateFSub(m, c(1.0));  // exact: m is within a factor 2 of 1
  auto [den, den_lo] = two_sum(m, c(1.0));
  Value* t = B.CreateFDiv(num, den);
  Value* t_lo = B.CreateFDiv(B.CreateFSub(fma(B.CreateFNeg(t), den, num), B.CreateFMul(t, den_lo)), den);
  // 2t + (2/3) t^3 + t^5 (2/5 + 2/7 t^2 + ...): the second term too in two parts (t^3 from
  // exact products, 2/3 split), the rest small enough for one; t's second part moves the
  // whole by the series' derivative, 2 + 2t^2 + ...
  Value* t2 = B.CreateFMul(t, t);
  Value* t2_err = fma(t, t, B.CreateFNeg(t2));
  Value* t3 = B.CreateFMul(t2, t);
  Value* t3_err = fma(t2_err, t, fma(t2, t, B.CreateFNeg(t3)));
  auto [third_hi, third_lo] = split(2.0L / 3);
  Value* cube = B.CreateFMul(third_hi, t3);
  Value* cube_err = fma(third_hi, t3_err, fma(third_lo, t3, fma(third_hi, t3, B.CreateFNeg(cube))));
  std::vector<double> atanh;
  for (int k = 2; k < p.log_terms; ++k) atanh.push_back(2.0 / double(2 * k + 1));
  Value* rest = B.CreateFMul(B.CreateFMul(t3, t2), poly(t2, atanh));
  auto [s, s_err] = two_sum(B.CreateFMul(t, c(2.0)), cube);
  Value* moved = B.CreateFMul(B.CreateFMul(t_lo, c(2.0)), B.CreateFAdd(c(1.0), t2));
  Value* s_lo = B.CreateFAdd(B.CreateFAdd(s_err, cube_err), B.CreateFAdd(rest, moved));
  auto [hi, hi_err] = two_sum(B.CreateFMul(ef, c(p.ln2_hi)), s);  // e ln2_hi is exact
  Value* lo = fma(ef, c(p.ln2_lo), B.CreateFAdd(hi_err, s_lo));
  // log 0 = -inf, log inf = inf, NaN stays (their lo does not count: exp ignores a tail
  // past its clamps).
  hi = B.CreateSelect(B.CreateFCmpOEQ(a, c(0.0)), c(-INFINITY), hi);
  hi = B.CreateSelect(B.CreateFCmpUEQ(a, c(INFINITY)), a, hi);  // inf or NaN
  return {hi, lo};
}

Value* Math::pow(Value* x, Value* y, bool two_part_log) {
  Value* magnitude;
  if (two_part_log) {  // y log|x| in two parts too: the second joins exp's reduced argument
    auto [l, l_lo] = log_two_parts(abs(x));
    Value* z = B.CreateFMul(y, l);
    magnitude = exp(z, fma(y, l_lo, fma(y, l, B.CreateFNeg(z))));
  } else {
    magnitude = exp(B.CreateFMul(y, log(abs(x))));
  }
  Value* integer = B.CreateFCmpOEQ(B.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, y), y);
  Value* half = B.CreateFMul(y, c(0.5));
  Value* odd = B.CreateAnd(integer, B.CreateFCmpONE(B.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, half), half));
  Value* negative = B.CreateIntrinsic(llvm::Intrinsic::copysign, {f}, {c(1.0), x});
  Value* r = B.CreateSelect(B.CreateAnd(odd, B.CreateFCmpOLT(negative, c(0.0))), B.CreateFNeg(magnitude), magnitude);
  Value* infinite_y = B.CreateFCmpOEQ(abs(y), c(INFINITY));
  Value* finite_negative = B.CreateAnd(B.CreateFCmpOLT(x, c(0.0)), B.CreateFCmpOGT(x, c(-INFINITY)));
  r = B.CreateSelect(B.CreateAnd(finite_negative, B.CreateNot(B.CreateOr(integer, infinite_y))), c(NAN), r);
  Value* one = B.CreateOr(B.CreateFCmpOEQ(y, c(0.0)), B.CreateFCmpOEQ(x, c(1.0)));
  one = B.CreateOr(one, B.CreateAnd(B.CreateFCmpOEQ(x, c(-1.0)), infinite_y));
  return B.CreateSelect(one, c(1.0), r);
}

}  // namespace math_ir

namespace {

using math_ir::kDouble;
using math_ir::kDoubleForFloat;
using math_ir::kFloat;
using math_ir::Math;
using math_ir::Value;
using math_ir::with_math;

// The builtins computed inline, each from a step of Math (rsqrt from an intrinsic), and
// whether in double too. erf is float only: its bound here is 2e-6, and a double one
// would take another method.
using MathFn = Value* (*)(Math&, llvm::ArrayRef<Value*>);
struct MathBuiltin {
  std::string_view name;
  MathFn fn;
  bool in_double;
};
constexpr MathBuiltin kMath[] = {
    {"exp", [](Math& m, llvm::ArrayRef<Value*> a) { return m.exp(a[0]); }, true},
    {"exp2", [](Math& m, llvm::ArrayRef<Value*> a) { return m.exp2(a[0]); }, true},
    {"exp10", [](Math& m, llvm::ArrayRef<Value*> a) { return m.exp10(a[0]); }, true},
    {"expm1", [](Math& m, llvm::ArrayRef<Value*> a) { return m.expm1(a[0]); }, true},
    {"log", [](Math& m, llvm::ArrayRef<Value*> a) { return m.log(a[0]); }, true},
    {"log2", [](Math& m, llvm::ArrayRef<Value*> a) { return m.log2(a[0]); }, true},
    {"log10", [](Math& m, llvm::ArrayRef<Value*> a) { return m.log10(a[0]); }, true},
    {"log1p", [](Math& m, llvm::ArrayRef<Value*> a) { return m.log1p(a[0]); }, true},
    {"tanh", [](Math& m, llvm::ArrayRef<Value*> a) { return m.tanh(a[0]); }, true},
    {"sinh", [](Math& m, llvm::ArrayRef<Value*> a) { return m.sinh(a[0]); }, true},
    {"cosh", [](Math& m, llvm::ArrayRef<Value*> a) { return m.cosh(a[0]); }, true},
    {"asinh", [](Math& m, llvm::ArrayRef<Value*> a) { return m.asinh(a[0]); }, true},
    {"acosh", [](Math& m, llvm::ArrayRef<Value*> a) { return m.acosh(a[0]); }, true},
    {"atanh", [](Math& m, llvm::ArrayRef<Value*> a) { return m.atanh(a[0]); }, true},
    {"atan", [](Math& m, llvm::ArrayRef<Value*> a) { return m.atan(a[0]); }, true},
    {"asin", [](Math& m, llvm::ArrayRef<Value*> a) { return m.asin(a[0]); }, true},
    {"acos", [](Math& m, llvm::ArrayRef<Value*> a) { return m.acos(a[0]); }, true},
    {"atan2", [](Math& m, llvm::ArrayRef<Value*> a) { return m.atan2(a[0], a[1]); }, true},
    {"hypot", [](Math& m, llvm::ArrayRef<Value*> a) { return m.hypot(a[0], a[1]); }, true},
    {"fdim", [](Math& m, llvm::ArrayRef<Value*> a) { return m.fdim(a[0], a[1]); }, true},
    {"fdivide", [](Math& m, llvm::ArrayRef<Value*> a) { return m.B.CreateFDiv(a[0], a[1]); }, true},
    {"cbrt", [](Math& m, llvm::ArrayRef<Value*> a) { return m.cbrt(a[0]); }, true},
    {"rcbrt", [](Math& m, llvm::ArrayRef<Value*> a) { return m.B.CreateFDiv(m.c(1.0), m.cbrt(a[0])); }, true},
    {"erf", [](Math& m, llvm::ArrayRef<Value*> a) { return m.erf(a[0]); }, false},
    {"rsqrt", [](Math& m, llvm::ArrayRef<Value*> a) { return m.B.CreateFDiv(m.c(1.0), m.B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a[0])); }, true},
};

const MathBuiltin* find_math(std::string_view name) {
  for (const MathBuiltin& b : kMath)
    if (b.name == name) return &b;
  return nullptr;
}

}  // namespace

bool inline_math_builtin(std::string_view name, ScalarType t) {
  const MathBuiltin* b = find_math(name);
  return b && (t == ScalarType::Float32 || (t == ScalarType::Float64 && b->in_double));
}

llvm::Value* emit_inline_math(llvm::IRBuilderBase& B, std::string_view name, llvm::ArrayRef<llvm::Value*> args) {
  const MathBuiltin* b = find_math(name);
  llvm::Type* f = args[0]->getType();
  bool dbl = f->getScalarType()->isDoubleTy();
  if (!b || (dbl && !b->in_double)) return nullptr;
  return with_math(B, f, dbl ? kDouble : kFloat, [&](Math& m) { return b->fn(m, args); });
}

llvm::Value* emit_pow(llvm::IRBuilderBase& B, llvm::Value* x, llvm::Value* y, bool for_float) {
  return with_math(B, x->getType(), for_float ? kDoubleForFloat : kDouble, [&](Math& m) { return m.pow(x, y, !for_float); });
}

}  // namespace tcs
