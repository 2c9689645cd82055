// Math builtins as straight-line IR: no call per element, so LLVM's loop vectoriser
// turns a loop of exp or tanh into vector code, in float or in double as the tensor is.
//
// Each function reduces the argument to a small range and evaluates a polynomial there,
// the same steps in both precisions with the constants and polynomial lengths of each
// (Precision below). Accuracy, measured against the C library over each type's range:
// exp and log within a few ulp in both; tanh within 2e-6 relative in float and a few ulp
// in double; erf (float only) within 2e-6. Special values follow C: exp(-inf) = 0,
// exp(+inf) = inf, log(0) = -inf, log(x < 0) = NaN, and a NaN argument gives NaN.
#include "codegen/LlvmMath.h"

#include <cmath>

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

namespace tcs {
namespace {

using llvm::Value;

// What the steps below need to know of a floating-point format.
struct Precision {
  int mantissa_bits;         // stored fraction bits: 23, 52
  int64_t bias;              // of the exponent field: 127, 1023
  double min_normal;         // the least positive normal number
  double exp_lo, exp_hi;     // exp is 0 below exp_lo and inf above exp_hi: clamped there
  double ln2_hi, ln2_lo;     // ln 2 = hi + lo, hi short enough that n * hi is exact
  int64_t sqrt_half_bits;    // the bits of sqrt(1/2) in this format
  int exp_degree;            // of e^r's Taylor series on |r| <= ln2 / 2
  int log_terms;             // of the atanh series, in t^2
  double tanh_series_below;  // |x| under which tanh is its Taylor series
  int tanh_terms;            // of that series, in x^2
  int sin_terms, cos_terms;  // of sin's and cos's Taylor series on |r| <= pi/4, in r^2
  int atan_terms;            // of atan's Taylor series on |u| <= tan(pi/8), in u^2
};

// Float: polynomials to float's 2^-24; double: to 2^-53 (the last term left out is
// below 1e-17 of the result on each range).
constexpr Precision kFloat{23, 127, 1.1754943508222875e-38, -104.0, 89.0, 0.693145751953125, 1.428606765330187e-06,
                           0x3f3504f3, 7, 6, 0.625, 8, 0, 0, 9};
constexpr Precision kDouble{52,   1023, 2.2250738585072014e-308, -746.0, 710.0, 6.93147180369123816490e-01,
                            1.90821492927058770002e-10, 0x3fe6a09e667f3bcd, 13, 12, 0.3, 13, 8, 8, 21};
// Double's ranges with polynomials for a float result computed in double (pow, sin,
// cos, tan): exp, sin and cos to float's 2^-24 and log to 2^-40, below the 2^-32 that
// y log|x| needs when it reaches 104 (a float's result relative error is that product's
// absolute one). Float's trigonometry has no float precision of its own: see sin_cos.
constexpr Precision kDoubleForFloat{52,   1023, 2.2250738585072014e-308, -746.0, 710.0, 6.93147180369123816490e-01,
                                    1.90821492927058770002e-10, 0x3fe6a09e667f3bcd, 7, 7, 0.3, 13, 5, 5, 9};

// tanh x = sum a_k x^(2k+1): from tanh' = 1 - tanh^2, (2k + 1) a_k = -sum_{i+j=k-1} a_i a_j.
std::vector<double> tanh_series(int terms) {
  std::vector<double> a(size_t(terms), 0.0);
  a[0] = 1.0;
  for (int k = 1; k < terms; ++k) {
    double s = 0;
    for (int i = 0; i < k; ++i) s += a[size_t(i)] * a[size_t(k - 1 - i)];
    a[size_t(k)] = -s / double(2 * k + 1);
  }
  return a;
}

struct Math {
  llvm::IRBuilderBase& B;
  llvm::Type* f;   // float or double, or a vector of them
  llvm::Type* i;   // an integer of the same width and shape
  const Precision& p;

  Value* c(double v) { return llvm::ConstantFP::get(f, v); }
  Value* ci(int64_t v) { return llvm::ConstantInt::get(i, uint64_t(v), true); }
  Value* fma(Value* a, Value* b, Value* d) { return B.CreateIntrinsic(llvm::Intrinsic::fma, {f}, {a, b, d}); }
  Value* abs(Value* x) { return B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x); }

  // c[0] + x * (c[1] + x * (c[2] + ...)), by Horner's rule with fused multiply-adds.
  Value* poly(Value* x, const std::vector<double>& k) {
    Value* r = c(k.back());
    for (size_t j = k.size() - 1; j-- > 0;) r = fma(r, x, c(k[j]));
    return r;
  }

  // x clamped to [lo, hi] with a NaN kept: each compare is false for a NaN, which then
  // falls through (maxnum and minnum would turn it into a bound).
  Value* clamp_keeping_nan(Value* x, double lo, double hi) {
    x = B.CreateSelect(B.CreateFCmpOLT(x, c(lo)), c(lo), x);
    return B.CreateSelect(B.CreateFCmpOGT(x, c(hi)), c(hi), x);
  }

  // Adding 1.5 * 2^m (m the mantissa bits: 23, 52) to a number below 2^(m-1) in
  // magnitude rounds it to the nearest integer n (the sum's unit in the last place is 1),
  // and leaves n in the sum's low mantissa bits: its bits are those of 1.5 * 2^m (float:
  // 0x4b400000) plus n. Subtracting it again gives n as a floating-point number.
  double rounding_shift() const { return std::ldexp(1.5, p.mantissa_bits); }

  // e^r 2^n for |r| <= ln2 / 2, n given as `shifted`, the bits of n + rounding_shift(),
  // from just below the least subnormal to just past the largest number. e^r by its
  // Taylor series. 2^n in two factors, 2^floor(n/2) and 2^ceil(n/2), each a normal
  // number, so that a subnormal result is rounded once and a result past the range
  // becomes inf. A factor's bits are (m + bias) << mantissa_bits; the shift's own bits
  // vanish there, as it and its half end in more zero bits than sign and exponent take.
  Value* scaled_exp(Value* r, Value* shifted) {
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
  Value* exp(Value* x) {
    // x = n ln2 + r, ln2 split in two so that n ln2's high part is exact.
    Value* xc = clamp_keeping_nan(x, p.exp_lo, p.exp_hi);
    Value* shifted = fma(xc, c(1.4426950408889634), c(rounding_shift()));
    Value* n = B.CreateFSub(shifted, c(rounding_shift()));
    Value* r = fma(n, c(-p.ln2_lo), fma(n, c(-p.ln2_hi), xc));
    return scaled_exp(r, shifted);
  }

  Value* exp2(Value* x) {
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
  template <class Combine>
  Value* log_in_base(Value* x, Combine combine) {
    Value* tiny = B.CreateFCmpOLT(x, c(p.min_normal));
    Value* xs = B.CreateSelect(tiny, B.CreateFMul(x, c(std::ldexp(1.0, p.mantissa_bits))), x);
    Value* bits = B.CreateBitCast(xs, i);
    // Move m into [sqrt(1/2), sqrt(2)): offset the exponent field by that of sqrt(1/2).
    Value* shifted = B.CreateSub(bits, ci(p.sqrt_half_bits));
    Value* e = B.CreateAShr(shifted, ci(p.mantissa_bits));
    Value* fraction = B.CreateAnd(shifted, ci((int64_t(1) << p.mantissa_bits) - 1));
    Value* m = B.CreateBitCast(B.CreateAdd(fraction, ci(p.sqrt_half_bits)), f);
    Value* ef = B.CreateSIToFP(e, f);
    ef = B.CreateSelect(tiny, B.CreateFSub(ef, c(double(p.mantissa_bits))), ef);
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

  Value* log(Value* x) {
    return log_in_base(x, [&](Value* e, Value* lm) { return fma(e, c(p.ln2_hi), fma(e, c(p.ln2_lo), lm)); });
  }

  Value* log2(Value* x) {
    return log_in_base(x, [&](Value* e, Value* lm) { return B.CreateFAdd(e, B.CreateFMul(lm, c(1.4426950408889634))); });
  }

  // e log10(2) in two parts, the first short enough that e times it is exact (|e| is
  // below 2^11), so that log10 of a power of ten comes out exact.
  Value* log10(Value* x) {
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
  Value* log1p(Value* x) {
    Value* u = B.CreateFAdd(c(1.0), x);
    Value* lu = log(u);
    Value* lost = B.CreateFDiv(B.CreateFSub(x, B.CreateFSub(u, c(1.0))), u);
    Value* edge = B.CreateOr(B.CreateFCmpOEQ(u, c(0.0)), B.CreateFCmpOEQ(u, c(INFINITY)));
    Value* y = B.CreateSelect(edge, lu, B.CreateFAdd(lu, lost));
    return B.CreateSelect(B.CreateFCmpOEQ(x, c(0.0)), x, y);
  }

  // e^x - 1: below ln2 / 2 in magnitude x times exp's Taylor series divided by x (no
  // cancellation), beyond exp(x) - 1 (which cancels at most a factor 3.5 there).
  Value* expm1(Value* x) {
    std::vector<double> taylor{1.0};
    for (int k = 2; k <= p.exp_degree + 2; ++k) taylor.push_back(taylor.back() / k);
    Value* small = B.CreateFMul(x, poly(x, taylor));
    Value* big = B.CreateFSub(exp(x), c(1.0));
    Value* y = B.CreateSelect(B.CreateFCmpOLT(abs(x), c(0.34657359027997264)), small, big);  // NaN: big
    return B.CreateSelect(B.CreateFCmpOEQ(x, c(0.0)), x, y);
  }

  // A constant in two parts: the first rounded to this precision, the second what it
  // left (from long double, so a double's second part is good to its own precision).
  std::pair<Value*, Value*> split(long double v) {
    double hi = p.mantissa_bits == 23 ? double(float(v)) : double(v);
    return {c(hi), c(double(v - hi))};
  }
  static constexpr long double kPi = 3.141592653589793238462643383279502884L;

  // atan of t in [0, 1]: from t > tan(pi/8), pi/4 + atan((t - 1)/(t + 1)), so the series
  // runs on |u| <= tan(pi/8) (float: to u^19, double: to u^43).
  Value* atan_unit(Value* t) {
    Value* mid = B.CreateFCmpOGT(t, c(0.41421356237309503));
    Value* u = B.CreateSelect(mid, B.CreateFDiv(B.CreateFSub(t, c(1.0)), B.CreateFAdd(t, c(1.0))), t);
    Value* z = B.CreateFMul(u, u);
    std::vector<double> k;
    for (int j = 1; j <= p.atan_terms; ++j) k.push_back((j % 2 ? -1.0 : 1.0) / double(2 * j + 1));
    Value* au = fma(B.CreateFMul(u, z), poly(z, k), u);
    auto [q_hi, q_lo] = split(kPi / 4);
    return B.CreateSelect(mid, B.CreateFAdd(q_hi, B.CreateFAdd(au, q_lo)), au);
  }

  // pi/2 - a, pi - a, with pi in two parts.
  Value* half_pi_minus(Value* a) {
    auto [hi, lo] = split(kPi / 2);
    return B.CreateFSub(hi, B.CreateFSub(a, lo));
  }
  Value* pi_minus(Value* a) {
    auto [hi, lo] = split(kPi);
    return B.CreateFSub(hi, B.CreateFSub(a, lo));
  }

  Value* atan(Value* x) {
    Value* a = abs(x);
    Value* big = B.CreateFCmpOGT(a, c(1.0));
    Value* r = atan_unit(B.CreateSelect(big, B.CreateFDiv(c(1.0), a), a));
    r = B.CreateSelect(big, half_pi_minus(r), r);
    return B.CreateIntrinsic(llvm::Intrinsic::copysign, {f}, {r, x});  // -0 stays -0, NaN NaN
  }

  // atan2 as C's: the smaller magnitude over the larger, then the octant; both zeros
  // give 0 or pi and both infinities pi/4 or 3pi/4, by x's sign; the sign is y's.
  Value* atan2(Value* y, Value* x) {
    Value* ay = abs(y);
    Value* ax = abs(x);
    Value* swap = B.CreateFCmpOGT(ay, ax);
    Value* t = B.CreateFDiv(B.CreateSelect(swap, ax, ay), B.CreateSelect(swap, ay, ax));
    Value* both_inf = B.CreateAnd(B.CreateFCmpOEQ(ax, c(INFINITY)), B.CreateFCmpOEQ(ay, c(INFINITY)));
    t = B.CreateSelect(both_inf, c(1.0), t);
    Value* both_zero = B.CreateAnd(B.CreateFCmpOEQ(ax, c(0.0)), B.CreateFCmpOEQ(ay, c(0.0)));
    t = B.CreateSelect(both_zero, c(0.0), t);
    Value* r = atan_unit(t);
    r = B.CreateSelect(swap, half_pi_minus(r), r);
    Value* x_negative = B.CreateFCmpOLT(B.CreateIntrinsic(llvm::Intrinsic::copysign, {f}, {c(1.0), x}), c(0.0));
    r = B.CreateSelect(x_negative, pi_minus(r), r);
    return B.CreateIntrinsic(llvm::Intrinsic::copysign, {f}, {r, y});
  }

  // asin and acos from atan2 and sqrt(1 - x^2) taken as sqrt((1 - x)(1 + x)), exact
  // enough near |x| = 1; past it the square root is NaN.
  Value* asin(Value* x) { return atan2(x, cosine_of_asin(x)); }
  Value* acos(Value* x) { return atan2(cosine_of_asin(x), x); }
  Value* cosine_of_asin(Value* x) {
    return B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, B.CreateFMul(B.CreateFSub(c(1.0), x), B.CreateFAdd(c(1.0), x)));
  }

  // |x| from which e^-|x| is below half an ulp of e^|x|: there cosh and sinh are
  // e^|x| / 2, taken as (e^{|x|/2} / 2) e^{|x|/2} so that it overflows only where they do.
  double hyperbolic_far() const { return double(p.mantissa_bits + 3) * 0.34657359027997264; }
  Value* half_exp_abs(Value* a) {
    Value* e2 = exp(B.CreateFMul(a, c(0.5)));
    return B.CreateFMul(B.CreateFMul(e2, c(0.5)), e2);
  }
  Value* cosh(Value* x) {
    Value* a = abs(x);
    Value* e = exp(a);
    Value* near = B.CreateFMul(B.CreateFAdd(e, B.CreateFDiv(c(1.0), e)), c(0.5));
    return B.CreateSelect(B.CreateFCmpOGT(a, c(hyperbolic_far())), half_exp_abs(a), near);
  }
  // sinh |x| = (e + e / (e + 1)) / 2 with e = e^|x| - 1: no cancellation near 0.
  Value* sinh(Value* x) {
    Value* a = abs(x);
    Value* e = expm1(a);
    Value* near = B.CreateFMul(B.CreateFAdd(e, B.CreateFDiv(e, B.CreateFAdd(e, c(1.0)))), c(0.5));
    Value* r = B.CreateSelect(B.CreateFCmpOGT(a, c(hyperbolic_far())), half_exp_abs(a), near);
    return B.CreateIntrinsic(llvm::Intrinsic::copysign, {f}, {r, x});
  }
  // asinh |x| = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))); where x^2 would overflow, and
  // where 1 no longer counts beside it, log|x| + ln2.
  Value* asinh(Value* x) {
    Value* a = abs(x);
    Value* a2 = B.CreateFMul(a, a);
    Value* near = log1p(B.CreateFAdd(a, B.CreateFDiv(a2, B.CreateFAdd(c(1.0), B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, B.CreateFAdd(c(1.0), a2))))));
    Value* far = B.CreateFAdd(log(a), c(0.6931471805599453));
    Value* r = B.CreateSelect(B.CreateFCmpOGT(a, c(std::ldexp(1.0, p.mantissa_bits / 2 + 2))), far, near);
    return B.CreateIntrinsic(llvm::Intrinsic::copysign, {f}, {r, x});
  }
  // acosh x = log1p((x - 1) + sqrt((x - 1)(x + 1))) (x - 1 exact near 1); far, log x +
  // ln2; NaN below 1.
  Value* acosh(Value* x) {
    Value* m = B.CreateFSub(x, c(1.0));
    Value* near = log1p(B.CreateFAdd(m, B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, B.CreateFMul(m, B.CreateFAdd(x, c(1.0))))));
    Value* far = B.CreateFAdd(log(x), c(0.6931471805599453));
    Value* r = B.CreateSelect(B.CreateFCmpOGT(x, c(std::ldexp(1.0, p.mantissa_bits / 2 + 2))), far, near);
    return B.CreateSelect(B.CreateFCmpULT(x, c(1.0)), c(NAN), r);
  }
  // atanh x = log1p(2|x| / (1 - |x|)) / 2, signed: +-inf at +-1, NaN past it.
  Value* atanh(Value* x) {
    Value* a = abs(x);
    Value* r = B.CreateFMul(log1p(B.CreateFDiv(B.CreateFMul(a, c(2.0)), B.CreateFSub(c(1.0), a))), c(0.5));
    return B.CreateIntrinsic(llvm::Intrinsic::copysign, {f}, {r, x});
  }

  // 10^x = e^{x ln10}, the product's rounding error (an FMA gives it) and ln10's second
  // part applied to first order, since e^x turns an absolute error into a relative one.
  Value* exp10(Value* x) {
    auto [hi, lo] = split(2.302585092994045684017991454684364208L);
    Value* t = B.CreateFMul(x, hi);
    Value* t_err = fma(x, lo, fma(x, hi, B.CreateFNeg(t)));
    Value* e = exp(t);
    // Not where e overflowed or x is infinite (t_err NaN).
    Value* finite = B.CreateAnd(B.CreateFCmpOLT(abs(t_err), c(INFINITY)), B.CreateFCmpOLT(e, c(INFINITY)));
    return B.CreateSelect(finite, fma(e, t_err, e), e);
  }

  // hypot as the larger magnitude times sqrt(1 + r^2), r the ratio of the smaller to it,
  // so nothing overflows before the result does; an infinity wins over a NaN, and two
  // zeros give 0.
  Value* hypot(Value* x, Value* y) {
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

  // x - y where x > y, +0 otherwise, NaN with a NaN.
  Value* fdim(Value* x, Value* y) {
    Value* r = B.CreateSelect(B.CreateFCmpUNO(x, y), c(NAN), c(0.0));
    return B.CreateSelect(B.CreateFCmpOGT(x, y), B.CreateFSub(x, y), r);
  }

  Value* tanh(Value* x) {
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

  Value* erf(Value* x) {
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

  // a + b as hi + lo exactly (Knuth's two-sum, for any magnitudes).
  std::pair<Value*, Value*> two_sum(Value* a, Value* b) {
    Value* s = B.CreateFAdd(a, b);
    Value* bb = B.CreateFSub(s, a);
    Value* err = B.CreateFAdd(B.CreateFSub(a, B.CreateFSub(s, bb)), B.CreateFSub(b, bb));
    return {s, err};
  }

  // x = n pi/2 + r, |r| <= pi/4 (a little more at most), r as hi + lo, and n mod 4, for a
  // double |x| below kTrigReduced. pi/2 is three doubles p1 + p2 + p3 (to 2^-160); x - n
  // p1 is exact (both are multiples of x's or p1's last place and the difference is
  // below 1), n p2 is split exactly by an FMA, and two-sums keep the rest, so r is good
  // to about 2^-100 absolute: enough even where x lies close to a multiple of pi/2.
  struct Reduced {
    Value *quadrant, *hi, *lo;
  };
  static constexpr double kPio2[3] = {0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54, -0x1.f1976b7ed8fbcp-110};
  Reduced reduce_half_pi(Value* x) {
    Value* shifted = fma(x, c(0.6366197723675814), c(rounding_shift()));
    Value* n = B.CreateFSub(shifted, c(rounding_shift()));
    Value* quadrant = B.CreateAnd(B.CreateBitCast(shifted, i), ci(3));  // the shift's low bits are 0
    Value* neg_n = B.CreateFNeg(n);
    Value* a = fma(neg_n, c(kPio2[0]), x);
    Value* b = B.CreateFMul(n, c(kPio2[1]));
    Value* b_err = fma(n, c(kPio2[1]), B.CreateFNeg(b));
    auto [s, s_err] = two_sum(a, B.CreateFNeg(b));
    Value* rest = fma(neg_n, c(kPio2[2]), B.CreateFSub(s_err, b_err));
    Value* hi = B.CreateFAdd(s, rest);
    Value* lo = B.CreateFSub(rest, B.CreateFSub(hi, s));  // fast two-sum: |s| >= |rest|
    return {quadrant, hi, lo};
  }

  // sin and cos of hi + lo (|hi| <= pi/4, lo below hi's last place) by their Taylor
  // series; lo enters to first order (sin' = cos ~ 1, cos' = -sin ~ -hi). cos's 1 - z/2
  // keeps the rounding of its subtraction (w + ((1 - w) - z/2)).
  std::pair<Value*, Value*> sin_cos_near_zero(Value* hi, Value* lo) {
    Value* z = B.CreateFMul(hi, hi);
    std::vector<double> sk, ck;
    double f = 1;  // (2k+1)! then (2k)!
    for (int k = 1; k <= p.sin_terms; ++k) sk.push_back((k % 2 ? -1 : 1) / (f *= double(2 * k) * double(2 * k + 1)));
    f = 2;
    for (int k = 2; k <= p.cos_terms + 1; ++k) ck.push_back((k % 2 ? -1 : 1) / (f *= double(2 * k - 1) * double(2 * k)));
    Value* sin = B.CreateFAdd(hi, fma(B.CreateFMul(hi, z), poly(z, sk), lo));
    Value* half_z = B.CreateFMul(z, c(0.5));
    Value* w = B.CreateFSub(c(1.0), half_z);
    Value* tail = fma(B.CreateFMul(z, z), poly(z, ck), B.CreateFNeg(B.CreateFMul(hi, lo)));
    Value* cos = B.CreateFAdd(w, B.CreateFAdd(B.CreateFSub(B.CreateFSub(c(1.0), w), half_z), tail));
    return {sin, cos};
  }

  // sin, cos or tan of x from its quadrant: sin x = (sin r, cos r, -sin r, -cos r) for
  // n mod 4 = 0..3, cos x = (cos r, -sin r, -cos r, sin r), tan x = sin x / cos x. A NaN
  // stays NaN through every step; sin and tan of -0 are -0.
  Value* trig(std::string_view name, Value* x) {
    Reduced r = reduce_half_pi(x);
    auto [s, co] = sin_cos_near_zero(r.hi, r.lo);
    Value* odd = B.CreateICmpNE(B.CreateAnd(r.quadrant, ci(1)), ci(0));
    auto negate_when = [&](Value* v, Value* bit) { return B.CreateSelect(bit, B.CreateFNeg(v), v); };
    Value* upper = B.CreateICmpNE(B.CreateAnd(r.quadrant, ci(2)), ci(0));
    Value* y;
    if (name == "sin") {
      y = negate_when(B.CreateSelect(odd, co, s), upper);
    } else if (name == "cos") {
      Value* flips = B.CreateICmpNE(B.CreateAnd(B.CreateAdd(r.quadrant, ci(1)), ci(2)), ci(0));
      y = negate_when(B.CreateSelect(odd, s, co), flips);
    } else {
      y = B.CreateSelect(odd, B.CreateFNeg(B.CreateFDiv(co, s)), B.CreateFDiv(s, co));
    }
    if (name == "cos") return y;
    return B.CreateSelect(B.CreateFCmpOEQ(x, c(0.0)), x, y);
  }

  // x^y as C's pow, from this precision's exp and log: e^{y log|x|}, negative for a
  // negative x and an odd integer y, NaN for a finite negative x and a finite y that is
  // no integer;
  // then C's cases where that formula gives NaN or the wrong sign: y = 0 gives 1 (even
  // for a NaN x), x = 1 gives 1 (even for a NaN y), and x = -1 with an infinite y gives 1.
  // (A NaN argument otherwise gives NaN, and 0, inf and the infinite y follow from
  // log 0 = -inf, log inf = inf and e^{+-inf}.)
  Value* pow(Value* x, Value* y) {
    Value* magnitude = exp(B.CreateFMul(y, log(abs(x))));
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
};

// The builtins computed here, each from the Math above (rsqrt from an intrinsic), and whether in double too. erf is float only: its
// bound here is 2e-6, and a double one would take another method.
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
  llvm::Type* i = dbl ? B.getInt64Ty() : B.getInt32Ty();
  if (auto* v = llvm::dyn_cast<llvm::FixedVectorType>(f)) i = llvm::FixedVectorType::get(i, v->getNumElements());
  Math m{B, f, i, dbl ? kDouble : kFloat};
  // Exactly the operations written: no reassociation may undo the rounding shift.
  llvm::IRBuilderBase::FastMathFlagGuard guard(B);
  B.clearFastMathFlags();
  return b->fn(m, args);
}

llvm::Value* emit_pow_for_float(llvm::IRBuilderBase& B, llvm::Value* x, llvm::Value* y) {
  llvm::Type* d = x->getType();
  llvm::Type* i = B.getInt64Ty();
  if (auto* v = llvm::dyn_cast<llvm::FixedVectorType>(d)) i = llvm::FixedVectorType::get(i, v->getNumElements());
  Math m{B, d, i, kDoubleForFloat};
  llvm::IRBuilderBase::FastMathFlagGuard guard(B);
  B.clearFastMathFlags();
  return m.pow(x, y);
}

bool trig_builtin(std::string_view name) { return name == "sin" || name == "cos" || name == "tan"; }

namespace {

// |x| from which sin, cos and tan call the reference: below it the reduction's n is
// under 2^30 and x - n p1 exact. Such arguments are rare; the branch to them costs
// nothing where no lane of a vector takes it.
constexpr double kTrigReduced = 1073741824.0;

// The lane widths the loop vectoriser may ask for.
constexpr int kVariantLanes[] = {2, 4, 8, 16, 32, 64};
constexpr std::string_view kVariantPrefix = "tcs_far_lanes.";

std::string variant_name(llvm::StringRef reference, int lanes) {
  return std::string(kVariantPrefix) + std::to_string(lanes) + "." + reference.str();
}

// The reference on the lanes of a vector that `mask` selects, one call each, nothing when
// it selects none; the loop vectoriser calls it for the far branch of a vector of lanes
// (declared on the call by its vector-function ABI name, a masked variant). Inlined after
// the vectoriser (inline_far_lanes), it becomes a branch that vectors of ordinary
// arguments skip.
llvm::Function* far_lanes_variant(llvm::Module& m, llvm::Function* reference, int lanes) {
  std::string name = variant_name(reference->getName(), lanes);
  if (llvm::Function* f = m.getFunction(name)) return f;
  llvm::LLVMContext& ctx = m.getContext();
  llvm::Type* d = llvm::Type::getDoubleTy(ctx);
  auto* vd = llvm::FixedVectorType::get(d, unsigned(lanes));
  auto* vm = llvm::FixedVectorType::get(llvm::Type::getInt1Ty(ctx), unsigned(lanes));
  auto* f = llvm::Function::Create(llvm::FunctionType::get(vd, {vd, vm}, false), llvm::GlobalValue::InternalLinkage, name, m);
  f->addFnAttr(llvm::Attribute::AlwaysInline);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Value* x = f->getArg(0);
  llvm::Value* mask = f->getArg(1);
  auto* entry = llvm::BasicBlock::Create(ctx, "entry", f);
  auto* lane = llvm::BasicBlock::Create(ctx, "lane", f);
  auto* call = llvm::BasicBlock::Create(ctx, "call", f);
  auto* next = llvm::BasicBlock::Create(ctx, "next", f);
  auto* done = llvm::BasicBlock::Create(ctx, "done", f);
  llvm::IRBuilder<> b(entry);
  llvm::Value* any = b.CreateICmpNE(b.CreateBitCast(mask, b.getIntNTy(unsigned(lanes))), b.getIntN(unsigned(lanes), 0));
  b.CreateCondBr(any, lane, done, llvm::MDBuilder(ctx).createBranchWeights(1, 1000000));
  b.SetInsertPoint(lane);
  llvm::PHINode* k = b.CreatePHI(b.getInt32Ty(), 2);
  llvm::PHINode* acc = b.CreatePHI(vd, 2);
  k->addIncoming(b.getInt32(0), entry);
  acc->addIncoming(x, entry);
  b.CreateCondBr(b.CreateExtractElement(mask, k), call, next);
  b.SetInsertPoint(call);
  llvm::Value* one = b.CreateInsertElement(acc, b.CreateCall(reference, {b.CreateExtractElement(x, k)}), k);
  b.CreateBr(next);
  b.SetInsertPoint(next);
  llvm::PHINode* merged = b.CreatePHI(vd, 2);
  merged->addIncoming(acc, lane);
  merged->addIncoming(one, call);
  llvm::Value* k1 = b.CreateAdd(k, b.getInt32(1));
  k->addIncoming(k1, next);
  acc->addIncoming(merged, next);
  b.CreateCondBr(b.CreateICmpEQ(k1, b.getInt32(uint32_t(lanes))), done, lane);
  b.SetInsertPoint(done);
  llvm::PHINode* result = b.CreatePHI(vd, 2);
  result->addIncoming(x, entry);
  result->addIncoming(merged, next);
  b.CreateRet(result);
  llvm::appendToCompilerUsed(m, {f});  // until the vectoriser has had its chance to call it
  return f;
}

}  // namespace

llvm::Value* emit_trig(llvm::IRBuilderBase& B, std::string_view name, llvm::Value* x, bool for_float,
                       llvm::FunctionCallee reference) {
  llvm::Function* fn = B.GetInsertBlock()->getParent();
  llvm::Module& m = *fn->getParent();
  llvm::Value* near;
  {
    Math math{B, B.getDoubleTy(), B.getInt64Ty(), for_float ? kDoubleForFloat : kDouble};
    llvm::IRBuilderBase::FastMathFlagGuard guard(B);
    B.clearFastMathFlags();
    near = math.trig(name, x);
  }
  llvm::Value* far = B.CreateFCmpOGE(B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), llvm::ConstantFP::get(x->getType(), kTrigReduced));
  llvm::BasicBlock* here = B.GetInsertBlock();
  auto* far_bb = llvm::BasicBlock::Create(B.getContext(), std::string(name) + ".far", fn);
  auto* join = llvm::BasicBlock::Create(B.getContext(), std::string(name) + ".join", fn);
  B.CreateCondBr(far, far_bb, join, llvm::MDBuilder(B.getContext()).createBranchWeights(1, 1000000));
  B.SetInsertPoint(far_bb);
  llvm::CallInst* call = B.CreateCall(reference, {x});
  // The reference has no effects: the vectoriser may then predicate the call through
  // the masked variants named here.
  call->setDoesNotAccessMemory();
  call->setDoesNotThrow();
  call->addFnAttr(llvm::Attribute::WillReturn);
  std::string variants;
  auto* ref = llvm::cast<llvm::Function>(reference.getCallee());
  for (int lanes : kVariantLanes) {
    far_lanes_variant(m, ref, lanes);
    variants += (variants.empty() ? "" : ",") + std::string("_ZGV_LLVM_M") + std::to_string(lanes) + "v_" +
                ref->getName().str() + "(" + variant_name(ref->getName(), lanes) + ")";
  }
  call->addFnAttr(llvm::Attribute::get(B.getContext(), "vector-function-abi-variant", variants));
  llvm::BasicBlock* far_end = B.GetInsertBlock();
  B.CreateBr(join);
  B.SetInsertPoint(join);
  llvm::PHINode* y = B.CreatePHI(x->getType(), 2);
  y->addIncoming(near, here);
  y->addIncoming(call, far_end);
  return y;
}

void drop_far_lanes_variants(llvm::Module& m) {
  auto ours = [](llvm::Constant* c) { return c->getName().starts_with(kVariantPrefix); };
  llvm::removeFromUsedLists(m, ours);
  std::vector<llvm::Function*> unused;
  for (llvm::Function& f : m) {
    if (!f.getName().starts_with(kVariantPrefix)) continue;
    f.removeDeadConstantUsers();  // the used list's old array
    if (f.use_empty()) unused.push_back(&f);
  }
  for (llvm::Function* f : unused) f->eraseFromParent();
}

}  // namespace tcs
