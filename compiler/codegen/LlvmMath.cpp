// Float builtins as straight-line IR: no call per element, so LLVM's loop vectoriser
// turns a loop of exp or tanh into vector code, in float as the tensor is.
//
// Each function reduces the argument to a small range and evaluates a polynomial there.
// Accuracy, measured against the double-precision reference over the float range: exp
// and log within a few ulp, tanh and erf within 2e-6 relative (the checks' bound is 1e-4).
// Special values follow C: exp(-inf) = 0, exp(+inf) = inf, log(0) = -inf, log(x < 0)
// = NaN, and a NaN argument gives NaN.
#include "codegen/LlvmMath.h"

#include <cmath>

#include <llvm/IR/Intrinsics.h>

namespace tcs {
namespace {

using llvm::Value;

struct Math {
  llvm::IRBuilderBase& B;
  llvm::Type* f;   // float or a vector of floats
  llvm::Type* i;   // i32 of the same shape

  Value* c(double v) { return llvm::ConstantFP::get(f, v); }
  Value* ci(int64_t v) { return llvm::ConstantInt::get(i, uint64_t(v), true); }
  Value* fma(Value* a, Value* b, Value* d) { return B.CreateIntrinsic(llvm::Intrinsic::fma, {f}, {a, b, d}); }
  Value* abs(Value* x) { return B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x); }

  // c[0] + x * (c[1] + x * (c[2] + ...)), by Horner's rule with fused multiply-adds.
  Value* poly(Value* x, std::initializer_list<double> coefs) {
    std::vector<double> k(coefs);
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

  // Adding 1.5 * 2^23 to a float below 2^22 in magnitude rounds it to the nearest integer
  // n (the sum's unit in the last place is 1), and leaves n in the sum's low mantissa bits:
  // its bits are 0x4b400000 + n. Subtracting it again gives n as a float.
  static constexpr double kRoundingShift = 12582912.0;

  // e^r 2^n for |r| <= ln2 / 2, n in [-151, 129] given as `shifted`, the bits of
  // n + kRoundingShift. e^r by its Taylor series to degree 7 (error below 2e-8 on that
  // range). 2^n in two factors, 2^floor(n/2) and 2^ceil(n/2), each a normal float, so
  // that a subnormal result is rounded once and a result past the float range becomes
  // inf. A factor's bits are (m + 127) << 23; the shift's own bits vanish there, as
  // 0x4b400000 and its half end in at least nine zero bits.
  Value* scaled_exp(Value* r, Value* shifted) {
    Value* p = poly(r, {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040});
    Value* k = B.CreateBitCast(shifted, i);
    Value* half = B.CreateAShr(k, ci(1));
    Value* low = B.CreateBitCast(B.CreateShl(B.CreateAdd(half, ci(127)), ci(23)), f);
    Value* high = B.CreateBitCast(B.CreateShl(B.CreateAdd(B.CreateSub(k, half), ci(127)), ci(23)), f);
    return B.CreateFMul(B.CreateFMul(p, low), high);
  }

  // Past the clamps the formula itself gives 0 (below -103.97) and inf (above 88.72); a
  // NaN goes through every step as a NaN.
  Value* exp(Value* x) {
    // x = n ln2 + r, ln2 split in two so that n ln2's high part is exact in float.
    Value* xc = clamp_keeping_nan(x, -104.0, 89.0);
    Value* shifted = fma(xc, c(1.4426950408889634), c(kRoundingShift));
    Value* n = B.CreateFSub(shifted, c(kRoundingShift));
    Value* r = fma(n, c(-1.428606765330187e-06), fma(n, c(-0.693145751953125), xc));
    return scaled_exp(r, shifted);
  }

  Value* exp2(Value* x) {
    // x = n + t with |t| <= 1/2, both exact; 2^t = e^{t ln2}.
    Value* xc = clamp_keeping_nan(x, -151.0, 129.0);
    Value* shifted = B.CreateFAdd(xc, c(kRoundingShift));
    Value* n = B.CreateFSub(shifted, c(kRoundingShift));
    Value* r = B.CreateFMul(B.CreateFSub(xc, n), c(0.6931471805599453));
    return scaled_exp(r, shifted);
  }

  Value* log(Value* x) {
    // x = m 2^e with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(t), t = (m - 1)/(m + 1),
    // |t| <= 0.172, by its odd series to t^11. Subnormals are scaled up by 2^23 first.
    Value* tiny = B.CreateFCmpOLT(x, c(1.1754943508222875e-38));
    Value* xs = B.CreateSelect(tiny, B.CreateFMul(x, c(8388608.0)), x);
    Value* bits = B.CreateBitCast(xs, i);
    // Move m into [sqrt(1/2), sqrt(2)): offset the exponent field by that of sqrt(1/2).
    Value* shifted = B.CreateSub(bits, ci(0x3f3504f3));
    Value* e = B.CreateAShr(shifted, ci(23));
    Value* m = B.CreateBitCast(B.CreateAdd(B.CreateAnd(shifted, ci(0x007fffff)), ci(0x3f3504f3)), f);
    Value* ef = B.CreateSIToFP(e, f);
    ef = B.CreateSelect(tiny, B.CreateFSub(ef, c(23.0)), ef);
    Value* t = B.CreateFDiv(B.CreateFSub(m, c(1.0)), B.CreateFAdd(m, c(1.0)));
    Value* t2 = B.CreateFMul(t, t);
    Value* s = B.CreateFMul(B.CreateFMul(t, c(2.0)), poly(t2, {1.0, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11}));
    Value* y = fma(ef, c(0.693145751953125), fma(ef, c(1.428606765330187e-06), s));
    y = B.CreateSelect(B.CreateFCmpOEQ(x, c(INFINITY)), x, y);
    y = B.CreateSelect(B.CreateFCmpOEQ(x, c(0.0)), c(-INFINITY), y);
    return B.CreateSelect(B.CreateFCmpULT(x, c(0.0)), c(NAN), y);  // negative or NaN
  }

  Value* tanh(Value* x) {
    // |x| < 0.625: the odd Taylor series to x^15 (relative error below 2e-6 at the edge,
    // far less inside); beyond: 1 - 2 / (e^{2|x|} + 1), with no cancellation there.
    Value* a = abs(x);
    Value* x2 = B.CreateFMul(x, x);
    Value* small = B.CreateFMul(x, poly(x2, {1.0, -1.0 / 3, 2.0 / 15, -17.0 / 315, 62.0 / 2835, -1382.0 / 155925,
                                             21844.0 / 6081075, -929569.0 / 638512875}));
    Value* big = B.CreateFSub(c(1.0), B.CreateFDiv(c(2.0), B.CreateFAdd(exp(B.CreateFMul(a, c(2.0))), c(1.0))));
    big = B.CreateIntrinsic(llvm::Intrinsic::copysign, {f}, {big, x});
    return B.CreateSelect(B.CreateFCmpOLT(a, c(0.625)), small, big);  // NaN takes `big`: NaN
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
};

// The builtins computed here, each from the Math above (exp2, log2, log10 and rsqrt
// from the others or an intrinsic).
using MathFn = Value* (*)(Math&, Value*);
constexpr std::pair<std::string_view, MathFn> kFloatMath[] = {
    {"exp", [](Math& m, Value* x) { return m.exp(x); }},
    {"exp2", [](Math& m, Value* x) { return m.exp2(x); }},
    {"log", [](Math& m, Value* x) { return m.log(x); }},
    {"log2", [](Math& m, Value* x) { return m.B.CreateFMul(m.log(x), m.c(1.4426950408889634)); }},
    {"log10", [](Math& m, Value* x) { return m.B.CreateFMul(m.log(x), m.c(0.4342944819032518)); }},
    {"tanh", [](Math& m, Value* x) { return m.tanh(x); }},
    {"erf", [](Math& m, Value* x) { return m.erf(x); }},
    {"rsqrt", [](Math& m, Value* x) { return m.B.CreateFDiv(m.c(1.0), m.B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x)); }},
};

MathFn find_float_math(std::string_view name) {
  for (const auto& [n, fn] : kFloatMath)
    if (n == name) return fn;
  return nullptr;
}

}  // namespace

bool float_math_builtin(std::string_view name) { return find_float_math(name) != nullptr; }

llvm::Value* emit_float_math(llvm::IRBuilderBase& B, std::string_view name, llvm::Value* x) {
  MathFn fn = find_float_math(name);
  if (!fn) return nullptr;
  llvm::Type* f = x->getType();
  llvm::Type* i = B.getInt32Ty();
  if (auto* v = llvm::dyn_cast<llvm::FixedVectorType>(f)) i = llvm::FixedVectorType::get(i, v->getNumElements());
  Math m{B, f, i};
  // Exactly the operations written: no reassociation may undo kRoundingShift's rounding.
  llvm::IRBuilderBase::FastMathFlagGuard guard(B);
  B.clearFastMathFlags();
  return fn(m, x);
}

}  // namespace tcs
