// sin, cos and tan, and the atan family, as straight-line IR (see LlvmMath.cpp for the
// method). sin, cos and tan are computed in double for every type: a float argument's
// reduction by pi/2 needs more than float's precision. Arguments of 2^30 and beyond
// take a branch to the double reference, which the loop vectoriser turns into a masked
// call per vector (far_lanes_variant).
#include "codegen/LlvmMath.h"

#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include "codegen/LlvmMathParts.h"

namespace tcs {
namespace math_ir {

// x = n pi/2 + r, |r| <= pi/4 (a little more at most), r as hi + lo, and n mod 4, for a
// double |x| below kTrigReduced. pi/2 is three doubles p1 + p2 + p3 (to 2^-160); x - n
// p1 is exact (both are multiples of x's or p1's last place and the difference is
// below 1), n p2 is split exactly by an FMA, and two-sums keep the rest, so r is good
// to about 2^-100 absolute: enough even where x lies close to a multiple of pi/2.
constexpr double kHalfPi[3] = {0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54, -0x1.f1976b7ed8fbcp-110};

Math::Reduced Math::reduce_half_pi(Value* x) {
  Value* shifted = fma(x, c(0.6366197723675814), c(rounding_shift()));
  Value* n = B.CreateFSub(shifted, c(rounding_shift()));
  Value* quadrant = B.CreateAnd(B.CreateBitCast(shifted, i), ci(3));  // the shift's low bits are 0
  Value* neg_n = B.CreateFNeg(n);
  Value* a = fma(neg_n, c(kHalfPi[0]), x);
  Value* b = B.CreateFMul(n, c(kHalfPi[1]));
  Value* b_err = fma(n, c(kHalfPi[1]), B.CreateFNeg(b));
  auto [s, s_err] = two_sum(a, B.CreateFNeg(b));
  Value* rest = fma(neg_n, c(kHalfPi[2]), B.CreateFSub(s_err, b_err));
  Value* hi = B.CreateFAdd(s, rest);
  Value* lo = B.CreateFSub(rest, B.CreateFSub(hi, s));  // fast two-sum: |s| >= |rest|
  return {quadrant, hi, lo};
}

// sin and cos of hi + lo (|hi| <= pi/4, lo below hi's last place) by their Taylor
// series; lo enters to first order (sin' = cos ~ 1, cos' = -sin ~ -hi). cos's 1 - z/2
// keeps the rounding of its subtraction (w + ((1 - w) - z/2)).
std::pair<Value*, Value*> Math::sin_cos_near_zero(Value* hi, Value* lo) {
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
Value* Math::trig(std::string_view name, Value* x) {
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

// atan of t in [0, 1]: from t > tan(pi/8), pi/4 + atan((t - 1)/(t + 1)), so the series
// runs on |u| <= tan(pi/8) (float: to u^19, double: to u^43).
Value* Math::atan_unit(Value* t) {
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
Value* Math::half_pi_minus(Value* a) {
  auto [hi, lo] = split(kPi / 2);
  return B.CreateFSub(hi, B.CreateFSub(a, lo));
}

Value* Math::pi_minus(Value* a) {
  auto [hi, lo] = split(kPi);
  return B.CreateFSub(hi, B.CreateFSub(a, lo));
}

Value* Math::atan(Value* x) {
  Value* a = abs(x);
  Value* big = B.CreateFCmpOGT(a, c(1.0));
  Value* r = atan_unit(B.CreateSelect(big, B.CreateFDiv(c(1.0), a), a));
  r = B.CreateSelect(big, half_pi_minus(r), r);
  return B.CreateIntrinsic(llvm::Intrinsic::copysign, {f}, {r, x});  // -0 stays -0, NaN NaN
}

// atan2 as C's: the smaller magnitude over the larger, then the octant; both zeros
// give 0 or pi and both infinities pi/4 or 3pi/4, by x's sign; the sign is y's.
Value* Math::atan2(Value* y, Value* x) {
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

Value* Math::cosine_of_asin(Value* x) {
  return B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, B.CreateFMul(B.CreateFSub(c(1.0), x), B.CreateFAdd(c(1.0), x)));
}

}  // namespace math_ir

using math_ir::kDouble;
using math_ir::kDoubleForFloat;
using math_ir::Math;

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
// the vectoriser (CpuKernel.cpp optimise), it becomes a branch that vectors of ordinary
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
  llvm::Value* near = math_ir::with_math(B, x->getType(), for_float ? kDoubleForFloat : kDouble,
                                         [&](Math& m) { return m.trig(name, x); });
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
  // The calls the vectoriser left scalar (rests, loops it did not take) name the variants
  // in an attribute; they go with them.
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& b : f)
      for (llvm::Instruction& i : b)
        if (auto* call = llvm::dyn_cast<llvm::CallInst>(&i); call && call->hasFnAttr("vector-function-abi-variant"))
          call->removeFnAttr("vector-function-abi-variant");
  std::vector<llvm::Function*> unused;
  for (llvm::Function& f : m) {
    if (!f.getName().starts_with(kVariantPrefix)) continue;
    f.removeDeadConstantUsers();  // the used list's old array
    if (f.use_empty()) unused.push_back(&f);
  }
  for (llvm::Function* f : unused) f->eraseFromParent();
}

}  // namespace tcs
