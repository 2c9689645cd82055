// Statements and scalar expressions. Semantics follow the interpreter: integer
// arithmetic wraps, float to integer conversion saturates, integer division by zero and
// out-of-range data-dependent subscripts set an error bit instead of trapping.
#include "codegen/LlvmEmitterImpl.h"

#include <cmath>

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>

#include "codegen/LlvmMath.h"
#include "lang/Builtins.h"
#include "lang/SubscriptValues.h"

namespace tcs::llvm_emit {
namespace {

// Builtins whose result is exact or correctly rounded, with the LLVM intrinsic that
// computes them in float or double (the rest are LlvmMath.cpp's, or call the reference
// implementation in double).
llvm::Intrinsic::ID math_intrinsic(std::string_view n, ScalarType t) {
  if (t != ScalarType::Float32 && t != ScalarType::Float64) return llvm::Intrinsic::not_intrinsic;
  using namespace llvm;
  static const std::pair<const char*, Intrinsic::ID> table[] = {
      {"sqrt", Intrinsic::sqrt},   {"fabs", Intrinsic::fabs},   {"floor", Intrinsic::floor},
      {"ceil", Intrinsic::ceil},   {"trunc", Intrinsic::trunc}, {"rint", Intrinsic::rint},
      {"nearbyint", Intrinsic::nearbyint}, {"round", Intrinsic::round}, {"copysign", Intrinsic::copysign},
      {"fma", Intrinsic::fma},     {"fmax", Intrinsic::maxnum}, {"fmin", Intrinsic::minnum}};
  for (auto& [name, id] : table)
    if (n == name) return id;
  return Intrinsic::not_intrinsic;
}

}  // namespace

void Emitter::set_error(int bit, llvm::Value* when, Env& env) {
  auto* yes = llvm::BasicBlock::Create(C, "error", env.fn);
  auto* cont = llvm::BasicBlock::Create(C, "ok", env.fn);
  B.CreateCondBr(when, yes, cont, llvm::MDBuilder(C).createBranchWeights(1, 1000000));
  B.SetInsertPoint(yes);
  B.CreateAtomicRMW(llvm::AtomicRMWInst::Or, env.err, B.getInt32(uint32_t(bit)), llvm::MaybeAlign(4),
                    llvm::AtomicOrdering::Monotonic);
  B.CreateBr(cont);
  B.SetInsertPoint(cont);
}

void Emitter::emit_call(const LoopNode& n, Env& env) {
  locate(n, env);
  const PolyStmt& ps = nest_.stmts[size_t(n.stmt)];
  StmtSemantics sem = stmt_semantics(def_, ps);
  stmt_ = &def_.stmts[size_t(ps.source_stmt)];
  env.stmt_args.clear();
  for (const LExpr& a : n.args) env.stmt_args.push_back(as_int(lx(a, env)));
  std::vector<llvm::Value*> lhs(env.stmt_args.begin(), env.stmt_args.begin() + stmt_->lhs_rank);
  // The tensor, or the buffer of a local temporary (a packed tensor is never written).
  int slot = read_slot(sem.lhs_tensor);
  llvm::Value* off = read_offset_of(sem.lhs_tensor, lhs, env);
  llvm::Type* ty = reg_type(sem.type);
  if (sem.is_init) {
    llvm::Value* id = scalar_type_is_float(sem.type) ? llvm::ConstantFP::get(ty, sem.identity_f)
                                                     : llvm::ConstantInt::get(ty, uint64_t(sem.identity_i));
    store(slot, off, id, env);
    return;
  }
  const Expr& rhs = stmt_->value();
  llvm::Value* v = convert(expr(rhs, env), rhs.type, sem.type);
  if (sem.combines) {
    llvm::Value* acc = load(slot, off, env);
    // A reduction whose initialisation was folded (fold_initialisations) normally runs in
    // register tiles; should one of its calls reach plain loops, it starts its sum from
    // the identity here, as the C text writes it, rather than add to an unzeroed output.
    if (folds_.starts_from_identity[size_t(n.stmt)]) {
      llvm::Value* begins = B.getTrue();
      const std::vector<int64_t>& at = ps.reduction_first;
      for (size_t d = 0; d < at.size(); ++d)
        begins = B.CreateAnd(begins, B.CreateICmpEQ(env.stmt_args[size_t(stmt_->lhs_rank) + d], B.getInt64(uint64_t(at[d]))));
      acc = B.CreateSelect(begins, llvm::ConstantFP::get(ty, sem.identity_f), acc);
    }
    v = combine(sem, acc, v);
  }
  store(slot, off, v, env);
}

llvm::Value* Emitter::combine(const StmtSemantics& s, llvm::Value* acc, llvm::Value* v) {
  bool fl = scalar_type_is_float(s.type);
  llvm::FastMathFlags fmf;
  fmf.setAllowReassoc();  // lets LLVM vectorise reductions; changes rounding only
  fmf.setAllowContract();
  llvm::IRBuilderBase::FastMathFlagGuard guard(B);
  B.setFastMathFlags(fmf);
  switch (s.op) {
    case ast::ReduceOp::Sum: return fl ? B.CreateFAdd(acc, v) : B.CreateAdd(acc, v);
    case ast::ReduceOp::Product: return fl ? B.CreateFMul(acc, v) : B.CreateMul(acc, v);
    case ast::ReduceOp::Min:
    case ast::ReduceOp::Max: {
      bool min = s.op == ast::ReduceOp::Min;
      if (fl) {  // a NaN wins, as in the interpreter; an intrinsic LLVM vectorises as a reduction
        // The interpreter's `v > m` does not order -0 below +0 as llvm.maximum does; saying
        // so (nsz) spares x86 two instructions and a mask per vector, a quarter of maxpool.
        fmf.setNoSignedZeros();
        B.setFastMathFlags(fmf);
        return B.CreateBinaryIntrinsic(min ? llvm::Intrinsic::minimum : llvm::Intrinsic::maximum, acc, v);
      }
      bool sign = scalar_type_is_signed(s.type);
      llvm::Value* better = min ? (sign ? B.CreateICmpSLT(v, acc) : B.CreateICmpULT(v, acc))
                                : (sign ? B.CreateICmpSGT(v, acc) : B.CreateICmpUGT(v, acc));
      return B.CreateSelect(better, v, acc);
    }
    default: return v;
  }
}

llvm::Value* Emitter::convert(llvm::Value* v, ScalarType from, ScalarType to) {
  if (from == to) return v;
  bool ff = scalar_type_is_float(from), tf = scalar_type_is_float(to);
  llvm::Type* t = reg_type(to);
  if (to == ScalarType::Bool)
    return ff ? B.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0))
              : B.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  if (ff && tf) {
    // x86 converts between half and double only by a call per element (without
    // AVX512-FP16). Through float instead: exactly one way; the other way rounds to odd
    // in float first (towards zero, the last bit set when inexact), which keeps the
    // rounding to half the only one that counts.
    if (from == ScalarType::Float16 && to == ScalarType::Float64) return B.CreateFPExt(B.CreateFPExt(v, B.getFloatTy()), t);
    if (from == ScalarType::Float64 && to == ScalarType::Float16) return B.CreateFPTrunc(round_to_odd_float(v), t);
    return B.CreateFPCast(v, t);
  }
  if (ff) return float_to_int(from == ScalarType::Float16 ? B.CreateFPExt(v, B.getFloatTy()) : v, to);
  bool from_signed = from != ScalarType::Bool && scalar_type_is_signed(from);
  if (tf) return from_signed ? B.CreateSIToFP(v, t) : B.CreateUIToFP(v, t);
  return B.CreateIntCast(v, t, from_signed);
}

llvm::Value* Emitter::round_to_odd_float(llvm::Value* d) {
  llvm::Type* f = d->getType()->getWithNewType(B.getFloatTy());
  llvm::Type* i = d->getType()->getWithNewType(B.getInt32Ty());
  llvm::Value* nearest = B.CreateFPTrunc(d, f);
  llvm::Value* back = B.CreateFPExt(nearest, d->getType());
  llvm::Value* bits = B.CreateBitCast(nearest, i);
  // Rounded away from zero: one step back (the bits below the sign are the magnitude).
  llvm::Value* away = B.CreateFCmpOGT(B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, back),
                                      B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, d));
  bits = B.CreateSelect(away, B.CreateSub(bits, llvm::ConstantInt::get(i, 1)), bits);
  bits = B.CreateSelect(B.CreateFCmpONE(back, d), B.CreateOr(bits, llvm::ConstantInt::get(i, 1)), bits);
  return B.CreateBitCast(bits, f);
}

// Float to integer saturates and takes NaN to 0, as the interpreter does. LLVM's
// fptosi.sat says the same, but x86 splits its vectors into one scalar conversion per lane
// (a quantisation to int8 ran 15x slower than the dequantisation), so the clamp is written
// out in the float type and the conversion only ever sees a value in range.
llvm::Value* Emitter::float_to_int(llvm::Value* v, ScalarType to) {
  llvm::Type* f = v->getType();
  int bits = scalar_type_bits(to);
  bool sign = scalar_type_is_signed(to);
  int mantissa = f->getScalarType()->isDoubleTy() ? 53 : 24;
  // The integer range is [lo, hi]; lo is a power of two or 0, exact in any float type.
  double lo = sign ? -std::ldexp(1.0, bits - 1) : 0.0, top = std::ldexp(1.0, sign ? bits - 1 : bits);
  auto c = [&](double x) { return llvm::ConstantFP::get(f, x); };
  llvm::Value* x = B.CreateSelect(B.CreateFCmpOLT(v, c(lo)), c(lo), v);  // NaN stays
  llvm::Value* nan = B.CreateFCmpUNO(v, v);
  llvm::Type* t = reg_type(to);
  auto to_int = [&](llvm::Value* in_range) { return sign ? B.CreateFPToSI(in_range, t) : B.CreateFPToUI(in_range, t); };
  if (bits < mantissa) {  // hi = top - 1 is exact too: clamp to it
    x = B.CreateSelect(B.CreateFCmpOGT(x, c(top - 1)), c(top - 1), x);
    return to_int(B.CreateSelect(nan, c(0), x));
  }
  // Below `top` every float converts within the range; `top` and above give hi.
  llvm::Value* big = B.CreateFCmpOGE(x, c(top));
  llvm::Value* i = to_int(B.CreateSelect(B.CreateOr(nan, big), c(0), x));
  return B.CreateSelect(big, llvm::ConstantInt::get(t, sign ? (uint64_t(1) << (bits - 1)) - 1 : ~uint64_t(0) >> (64 - bits)), i);
}

llvm::Value* Emitter::expr(const Expr& e, Env& env) {
  switch (e.kind) {
    case ExprKind::IntLiteral: return llvm::ConstantInt::get(reg_type(e.type), uint64_t(e.int_value));
    case ExprKind::FloatLiteral: return llvm::ConstantFP::get(reg_type(e.type), double(float(e.float_value)));
    case ExprKind::Name:
      if (e.ref == NameRef::Index)  // index expressions are int32
        return convert(B.CreateTrunc(env.stmt_args[size_t(e.ref_id)], i32_), ScalarType::Int32, e.type);
      if (e.ref == NameRef::SizeParam)
        return convert(B.CreateTrunc(sym(layout_.sizes[size_t(e.ref_id)], env), i32_), ScalarType::Int32, e.type);
      return load(read_slot(e.ref_id), B.getInt64(0), env);
    case ExprKind::Access:
      if (e.ref == NameRef::Builtin) return call_builtin(e, env);
      return read(e, env);
    case ExprKind::Unary: {
      llvm::Value* a = expr(*e.args[0], env);
      if (e.op == TokenKind::Bang) return B.CreateNot(as_bool_value(a, e.args[0]->type));
      a = convert(a, e.args[0]->type, e.type);
      return scalar_type_is_float(e.type) ? B.CreateFNeg(a) : B.CreateNeg(a);
    }
    case ExprKind::Binary: return binary(e, env);
    case ExprKind::Ternary: {
      llvm::Value* c = as_bool_value(expr(*e.args[0], env), e.args[0]->type);
      auto* then_bb = llvm::BasicBlock::Create(C, "sel.then", env.fn);
      auto* else_bb = llvm::BasicBlock::Create(C, "sel.else", env.fn);
      auto* merge = llvm::BasicBlock::Create(C, "sel.end", env.fn);
      B.CreateCondBr(c, then_bb, else_bb);
      B.SetInsertPoint(then_bb);
      llvm::Value* a = convert(expr(*e.args[1], env), e.args[1]->type, e.type);
      llvm::BasicBlock* a_end = B.GetInsertBlock();
      B.CreateBr(merge);
      B.SetInsertPoint(else_bb);
      llvm::Value* b = convert(expr(*e.args[2], env), e.args[2]->type, e.type);
      llvm::BasicBlock* b_end = B.GetInsertBlock();
      B.CreateBr(merge);
      B.SetInsertPoint(merge);
      llvm::PHINode* phi = B.CreatePHI(reg_type(e.type), 2);
      phi->addIncoming(a, a_end);
      phi->addIncoming(b, b_end);
      return phi;
    }
    case ExprKind::Cast: return convert(expr(*e.args[0], env), e.args[0]->type, e.cast_type);
    case ExprKind::MinMax: {
      llvm::Value* a = convert(expr(*e.args[0], env), e.args[0]->type, e.type);
      llvm::Value* b = convert(expr(*e.args[1], env), e.args[1]->type, e.type);
      // min: a unless b < a; max: a unless a < b (NaN operands keep a, as the interpreter).
      bool min = e.op == TokenKind::KwMin;
      llvm::Value* take_b = min ? less(b, a, e.type) : less(a, b, e.type);
      return B.CreateSelect(take_b, b, a);
    }
  }
  return nullptr;
}

llvm::Value* Emitter::less(llvm::Value* a, llvm::Value* b, ScalarType t) {
  if (scalar_type_is_float(t)) return B.CreateFCmpOLT(a, b);
  if (t == ScalarType::Bool || !scalar_type_is_signed(t)) return B.CreateICmpULT(a, b);
  return B.CreateICmpSLT(a, b);
}

llvm::Value* Emitter::read_offset(const Expr& e, Env& env) {
  int t = e.ref_id;
  const TensorLayout& sh = layout_.tensors[size_t(t)];
  std::vector<llvm::Value*> coords;
  for (size_t d = 0; d < e.args.size(); ++d) {
    const Expr* s = e.args[d].get();
    const AccessConstraint* ac = nullptr;
    for (const AccessConstraint& c : stmt_->constraints)
      if (c.subscript == s) ac = &c;
    if (ac && ac->affine && !ac->data_dependent && !ac->checked_when_run()) {
      std::optional<SymExpr> rest;
      if (layout_.symbolic) rest = ac->rest;
      else if (auto v = ac->rest.eval(shapes_.sizes)) rest = SymExpr(*v);
      if (rest) {
        llvm::Value* c = sym(*rest, env);
        for (auto [idx, coef] : ac->coefs)
          if (coef) c = B.CreateNSWAdd(c, B.CreateNSWMul(env.stmt_args[size_t(idx)], B.getInt64(uint64_t(coef))));
        coords.push_back(c);
        continue;
      }
    }
    // Computed at run time (data-dependent, guarded or not affine) and checked, unless
    // its values over the statement's ranges all lie inside the tensor: out of range sets
    // the error bit and reads the first element instead.
    llvm::Value* v = expr(*s, env);
    ScalarType st = s->type;
    llvm::Value* c;
    if (st == ScalarType::UInt64) c = B.CreateSelect(B.CreateICmpSLT(v, B.getInt64(0)), B.getInt64(INT64_MAX), v);
    else c = convert(v, st, ScalarType::Int64);
    if (!layout_.symbolic) {
      const TensorShape& shape = shapes_.tensors[size_t(t)];
      auto values = subscript_values(*s, shapes_.stmts[size_t(stmt_ - def_.stmts.data())], shapes_.sizes);
      if (values && values->first >= shape.min[d] && values->second <= shape.min[d] + shape.extent[d] - 1) {
        coords.push_back(c);
        continue;
      }
    }
    llvm::Value* lo = sym(sh.lo[d], env);
    llvm::Value* hi = sym(sh.lo[d] + sh.extent[d] - SymExpr(1), env);
    llvm::Value* bad = B.CreateOr(B.CreateICmpSLT(c, lo), B.CreateICmpSGT(c, hi));
    set_error(kErrSubscriptOutOfRange, bad, env);
    coords.push_back(B.CreateSelect(bad, lo, c));
  }
  return read_offset_of(t, coords, env);
}

llvm::Value* Emitter::call_builtin(const Expr& e, Env& env) {
  const Builtin& b = builtins()[size_t(e.ref_id)];
  // float16 is computed in float and then rounded to half: a float holds every half
  // exactly, and the float functions err far below a half's unit in the last place. fma
  // is computed in double as the reference does (float would round the sum twice), and
  // nextafter, which steps by the result type's unit, stays with the reference.
  ScalarType t = e.type;
  if (t == ScalarType::Float16 && b.name != "nextafter") t = b.name == "fma" ? ScalarType::Float64 : ScalarType::Float32;
  std::vector<llvm::Value*> args;
  auto args_in = [&](ScalarType in) {
    for (const auto& a : e.args) args.push_back(convert(expr(*a, env), a->type, in));
  };
  // The reference implementation in double, from Builtins.cpp.
  auto reference = [&] {
    std::vector<llvm::Type*> params(e.args.size(), B.getDoubleTy());
    return module_->getOrInsertFunction("tcs_builtin_" + std::string(b.name),
                                        llvm::FunctionType::get(B.getDoubleTy(), params, false));
  };
  if (inline_math_builtin(b.name, t)) {
    args_in(t);
    return convert(emit_inline_math(B, b.name, args), t, e.type);
  }
  if (trig_builtin(b.name) && (t == ScalarType::Float32 || t == ScalarType::Float64)) {
    args_in(ScalarType::Float64);
    return convert(emit_trig(B, b.name, args[0], t == ScalarType::Float32, reference()), ScalarType::Float64, e.type);
  }
  if (b.name == "pow" && (t == ScalarType::Float32 || t == ScalarType::Float64)) {  // float16 is Float32 here
    args_in(ScalarType::Float64);
    return convert(emit_pow(B, args[0], args[1], t == ScalarType::Float32), ScalarType::Float64, e.type);
  }
  if (llvm::Intrinsic::ID id = math_intrinsic(b.name, t); id != llvm::Intrinsic::not_intrinsic) {
    args_in(t);
    return convert(B.CreateIntrinsic(id, {reg_type(t)}, args), t, e.type);
  }
  if (b.name == "nextafter" && e.type == ScalarType::Float32) {  // a step in float, not in double
    args_in(ScalarType::Float32);
    llvm::FunctionCallee f = module_->getOrInsertFunction(
        "nextafterf", llvm::FunctionType::get(B.getFloatTy(), {B.getFloatTy(), B.getFloatTy()}, false));
    return B.CreateCall(f, args);
  }
  args_in(ScalarType::Float64);
  return convert(B.CreateCall(reference(), args), ScalarType::Float64, e.type);
}

llvm::Value* Emitter::binary(const Expr& e, Env& env) {
  const Expr& l = *e.args[0];
  const Expr& r = *e.args[1];
  if (e.op == TokenKind::AndAnd || e.op == TokenKind::OrOr) {
    bool is_and = e.op == TokenKind::AndAnd;
    llvm::Value* a = as_bool_value(expr(l, env), l.type);
    llvm::BasicBlock* a_end = B.GetInsertBlock();
    auto* rhs_bb = llvm::BasicBlock::Create(C, is_and ? "and.rhs" : "or.rhs", env.fn);
    auto* merge = llvm::BasicBlock::Create(C, is_and ? "and.end" : "or.end", env.fn);
    if (is_and) B.CreateCondBr(a, rhs_bb, merge);
    else B.CreateCondBr(a, merge, rhs_bb);
    B.SetInsertPoint(rhs_bb);
    llvm::Value* b = as_bool_value(expr(r, env), r.type);
    llvm::BasicBlock* b_end = B.GetInsertBlock();
    B.CreateBr(merge);
    B.SetInsertPoint(merge);
    llvm::PHINode* phi = B.CreatePHI(B.getInt1Ty(), 2);
    phi->addIncoming(B.getInt1(!is_and), a_end);
    phi->addIncoming(b, b_end);
    return phi;
  }
  ScalarType t = e.type;
  bool compare = t == ScalarType::Bool;
  if (compare) t = l.type == ScalarType::Bool ? ScalarType::Bool : scalar_type_promote(l.type, r.type);
  llvm::Value* a = convert(expr(l, env), l.type, t);
  llvm::Value* b = convert(expr(r, env), r.type, t);
  bool fl = scalar_type_is_float(t);
  bool sign = t != ScalarType::Bool && scalar_type_is_signed(t);
  llvm::FastMathFlags fmf;
  fmf.setAllowContract();
  llvm::IRBuilderBase::FastMathFlagGuard guard(B);
  B.setFastMathFlags(fmf);
  switch (e.op) {
    case TokenKind::Less: return less(a, b, t);
    case TokenKind::Greater: return less(b, a, t);
    case TokenKind::LessEq: return fl ? B.CreateFCmpOLE(a, b) : sign ? B.CreateICmpSLE(a, b) : B.CreateICmpULE(a, b);
    case TokenKind::GreaterEq: return fl ? B.CreateFCmpOGE(a, b) : sign ? B.CreateICmpSGE(a, b) : B.CreateICmpUGE(a, b);
    case TokenKind::EqEq: return fl ? B.CreateFCmpOEQ(a, b) : B.CreateICmpEQ(a, b);
    case TokenKind::NotEq: return fl ? B.CreateFCmpUNE(a, b) : B.CreateICmpNE(a, b);
    case TokenKind::Plus: return fl ? B.CreateFAdd(a, b) : B.CreateAdd(a, b);
    case TokenKind::Minus: return fl ? B.CreateFSub(a, b) : B.CreateSub(a, b);
    case TokenKind::Star: return fl ? B.CreateFMul(a, b) : B.CreateMul(a, b);
    case TokenKind::Slash:
    case TokenKind::Percent: {
      bool div = e.op == TokenKind::Slash;
      if (fl && div) {
        // A reciprocal may stand in (an ulp more rounding): a quotient by what a loop does
        // not change (softmax's row sum) becomes one division before it and a product per
        // element, where a vector division costs as much as a dozen products.
        llvm::Value* q = B.CreateFDiv(a, b);
        if (auto* i = llvm::dyn_cast<llvm::Instruction>(q)) i->setHasAllowReciprocal(true);
        return q;
      }
      if (fl) return B.CreateFRem(a, b);
      llvm::Type* ty = a->getType();
      llvm::Value* zero = llvm::ConstantInt::get(ty, 0);
      llvm::Value* is_zero = B.CreateICmpEQ(b, zero);
      set_error(kErrDivisionByZero, is_zero, env);
      llvm::Value* minus_one = sign ? B.CreateICmpEQ(b, llvm::ConstantInt::getSigned(ty, -1)) : B.getFalse();
      llvm::Value* safe = B.CreateSelect(B.CreateOr(is_zero, minus_one), llvm::ConstantInt::get(ty, 1), b);
      llvm::Value* q = div ? (sign ? B.CreateSDiv(a, safe) : B.CreateUDiv(a, safe))
                           : (sign ? B.CreateSRem(a, safe) : B.CreateURem(a, safe));
      if (sign) q = B.CreateSelect(minus_one, div ? B.CreateNeg(a) : zero, q);  // no INT_MIN / -1 trap
      return B.CreateSelect(is_zero, zero, q);
    }
    default: return nullptr;
  }
}

}  // namespace tcs::llvm_emit
