#pragma once
// Private to compiler/codegen: the steps the math builtins are built from
// (LlvmMath.cpp: exp, log and what comes from them; LlvmTrig.cpp: sin, cos, tan and the
// atan family), each emitted as straight-line IR in float or in double (Precision).
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include <llvm/ADT/STLFunctionalExtras.h>
#include <llvm/IR/IRBuilder.h>

namespace tcs::math_ir {

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
inline constexpr Precision kFloat{23, 127, 1.1754943508222875e-38, -104.0, 89.0, 0.693145751953125, 1.428606765330187e-06,
                           0x3f3504f3, 7, 6, 0.625, 8, 0, 0, 9};
inline constexpr Precision kDouble{52,   1023, 2.2250738585072014e-308, -746.0, 710.0, 6.93147180369123816490e-01,
                            1.90821492927058770002e-10, 0x3fe6a09e667f3bcd, 13, 12, 0.3, 13, 8, 8, 21};
// Double's ranges with polynomials for a float result computed in double (pow, sin,
// cos, tan): exp, sin and cos to float's 2^-24 and log to 2^-40, below the 2^-32 that
// y log|x| needs when it reaches 104 (a float's result relative error is that product's
// absolute one). Float's trigonometry has no float precision of its own (LlvmTrig.cpp).
inline constexpr Precision kDoubleForFloat{52,   1023, 2.2250738585072014e-308, -746.0, 710.0, 6.93147180369123816490e-01,
                                    1.90821492927058770002e-10, 0x3fe6a09e667f3bcd, 7, 7, 0.3, 13, 5, 5, 9};

// The IR of one precision: constants of its type, small helpers, and the steps, each
// defined with its reasoning in LlvmMath.cpp or LlvmTrig.cpp.
struct Math {
  llvm::IRBuilderBase& B;
  llvm::Type* f;  // float or double, or a vector of them
  llvm::Type* i;  // an integer of the same width and shape
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

  // A constant in two parts: the first rounded to this precision, the second what it
  // left (from long double, so a double's second part is good to its own precision).
  std::pair<Value*, Value*> split(long double v) {
    double hi = p.mantissa_bits == 23 ? double(float(v)) : double(v);
    return {c(hi), c(double(v - hi))};
  }
  static constexpr long double kPi = 3.141592653589793238462643383279502884L;

  // a + b as hi + lo exactly (Knuth's two-sum, for any magnitudes).
  std::pair<Value*, Value*> two_sum(Value* a, Value* b) {
    Value* s = B.CreateFAdd(a, b);
    Value* bb = B.CreateFSub(s, a);
    Value* err = B.CreateFAdd(B.CreateFSub(a, B.CreateFSub(s, bb)), B.CreateFSub(b, bb));
    return {s, err};
  }

  // LlvmMath.cpp: the exponential and the logarithm, and what is built from them.
  Value* scaled_exp(Value* r, Value* shifted);
  Value* exp(Value* x, Value* tail = nullptr);
  Value* exp2(Value* x);
  Value* exp10(Value* x);
  Value* expm1(Value* x);
  std::pair<Value*, Value*> exponent_and_mantissa(Value* x);
  Value* log_in_base(Value* x, llvm::function_ref<Value*(Value*, Value*)> combine);
  std::pair<Value*, Value*> log_two_parts(Value* a);
  Value* log(Value* x);
  Value* log2(Value* x);
  Value* log10(Value* x);
  Value* log1p(Value* x);
  Value* pow(Value* x, Value* y, bool two_part_log);
  Value* tanh(Value* x);
  Value* erf(Value* x);
  // |x| from which e^-|x| is below half an ulp of e^|x|: there cosh and sinh are
  // e^|x| / 2, taken as (e^{|x|/2} / 2) e^{|x|/2} so that it overflows only where they do.
  double hyperbolic_far() const { return double(p.mantissa_bits + 3) * 0.34657359027997264; }
  Value* half_exp_abs(Value* a);
  Value* cosh(Value* x);
  Value* sinh(Value* x);
  Value* asinh(Value* x);
  Value* acosh(Value* x);
  Value* atanh(Value* x);
  Value* hypot(Value* x, Value* y);
  Value* fdim(Value* x, Value* y);
  Value* cbrt(Value* x);

  // LlvmTrig.cpp: reduction by pi/2, sin, cos and tan; the atan family.
  struct Reduced {
    Value *quadrant, *hi, *lo;  // n mod 4, and r = x - n pi/2 as hi + lo
  };
  Reduced reduce_half_pi(Value* x);
  std::pair<Value*, Value*> sin_cos_near_zero(Value* hi, Value* lo);
  Value* trig(std::string_view name, Value* x);
  Value* atan_unit(Value* t);
  Value* half_pi_minus(Value* a);
  Value* pi_minus(Value* a);
  Value* atan(Value* x);
  Value* atan2(Value* y, Value* x);
  // asin and acos from atan2 and sqrt(1 - x^2) taken as sqrt((1 - x)(1 + x)), exact
  // enough near |x| = 1; past it the square root is NaN.
  Value* cosine_of_asin(Value* x);
  Value* asin(Value* x) { return atan2(x, cosine_of_asin(x)); }
  Value* acos(Value* x) { return atan2(cosine_of_asin(x), x); }
};

// The steps of precision `p` on values of type `f` (a scalar or a vector), run without
// fast-math flags: exactly the operations written, so no reassociation undoes a rounding
// shift or a two-sum.
template <class Steps>
Value* with_math(llvm::IRBuilderBase& B, llvm::Type* f, const Precision& p, Steps steps) {
  Math m{B, f, f->getWithNewType(p.mantissa_bits > 23 ? B.getInt64Ty() : B.getInt32Ty()), p};
  llvm::IRBuilderBase::FastMathFlagGuard guard(B);
  B.clearFastMathFlags();
  return steps(m);
}

}  // namespace tcs::math_ir
