// LoopNest -> LLVM IR. Each tensor is a noalias pointer argument of the function that
// holds the loops, so LLVM may vectorise and keep values in registers; a parallel loop is
// outlined into a function that the runtime's thread pool calls with a range of
// iterations. Scalar semantics follow the interpreter: integer arithmetic wraps, float to
// integer conversion saturates, integer division by zero and out-of-range data-dependent
// subscripts set an error bit instead of trapping.
#include "codegen/LlvmEmitter.h"

#include <optional>

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include "codegen/StmtSemantics.h"
#include "loopnest/Affine.h"
#include "lang/Builtins.h"

namespace tcs {

void* builtin_symbol_address(const std::string& symbol) {
  const std::string prefix = "tcs_builtin_";
  if (symbol.compare(0, prefix.size(), prefix) != 0) return nullptr;
  const Builtin* b = builtin_find(symbol.substr(prefix.size()));
  if (!b) return nullptr;
  if (b->fn1) return reinterpret_cast<void*>(b->fn1);
  if (b->fn2) return reinterpret_cast<void*>(b->fn2);
  return reinterpret_cast<void*>(b->fn3);
}

namespace {

using ast::Expr;
using ast::ExprKind;
using ast::NameRef;
using llvm::Value;

// Builtins with an LLVM intrinsic computing them in float; the rest call the reference
// implementation in double.
llvm::Intrinsic::ID float_intrinsic(std::string_view n) {
  using namespace llvm;
  static const std::pair<const char*, Intrinsic::ID> table[] = {
      {"sqrt", Intrinsic::sqrt},   {"fabs", Intrinsic::fabs},   {"floor", Intrinsic::floor},
      {"ceil", Intrinsic::ceil},   {"trunc", Intrinsic::trunc}, {"rint", Intrinsic::rint},
      {"nearbyint", Intrinsic::nearbyint}, {"round", Intrinsic::round}, {"copysign", Intrinsic::copysign},
      {"fma", Intrinsic::fma},     {"fmax", Intrinsic::maxnum}, {"fmin", Intrinsic::minnum},
      {"exp", Intrinsic::exp},     {"exp2", Intrinsic::exp2},   {"log", Intrinsic::log},
      {"log2", Intrinsic::log2},   {"log10", Intrinsic::log10}, {"pow", Intrinsic::pow},
      {"sin", Intrinsic::sin},     {"cos", Intrinsic::cos}};
  for (auto& [name, id] : table)
    if (n == name) return id;
  return Intrinsic::not_intrinsic;
}

class Emitter {
 public:
  Emitter(llvm::LLVMContext& c, const LlvmEmitRequest& r)
      : C(c), req_(r), def_(*r.def), shapes_(*r.shapes), nest_(*r.nest),
        module_(std::make_unique<llvm::Module>("tcs_" + r.def->name, c)), B(c), dib_(*module_) {}

  std::unique_ptr<llvm::Module> run() {
    module_->addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
    module_->addModuleFlag(llvm::Module::Warning, "Dwarf Version", 4);
    file_ = dib_.createFile(req_.c_file_name, ".");
    cu_ = dib_.createCompileUnit(llvm::dwarf::DW_LANG_C99, file_, "TC Studio", true, "", 0, "",
                                 llvm::DICompileUnit::LineTablesOnly);
    ptr_ = llvm::PointerType::get(C, 0);
    i64_ = B.getInt64Ty();
    i32_ = B.getInt32Ty();
    auto* pf_type = llvm::FunctionType::get(B.getVoidTy(), {ptr_, ptr_, ptr_, i64_}, false);
    parallel_for_ = llvm::Function::Create(pf_type, llvm::Function::ExternalLinkage, "tcs_rt_parallel_for", *module_);

    // The body: every tensor a noalias argument, then the error word and the pool.
    Env body = make_impl("tcs_body", {});
    emit_children(nest_.root.children, body);
    B.CreateRetVoid();

    // The entry point unpacks the buffer array and returns the error bits.
    auto* entry_type = llvm::FunctionType::get(i32_, {ptr_, ptr_}, false);
    llvm::Function* entry = llvm::Function::Create(entry_type, llvm::Function::ExternalLinkage, kKernelSymbol, *module_);
    entry->addFnAttr(llvm::Attribute::NoUnwind);
    B.SetInsertPoint(llvm::BasicBlock::Create(C, "entry", entry));
    B.SetCurrentDebugLocation(llvm::DebugLoc());
    llvm::Value* err = B.CreateAlloca(i32_, nullptr, "err");
    B.CreateStore(B.getInt32(0), err);
    std::vector<llvm::Value*> args;
    for (size_t t = 0; t < def_.tensors.size(); ++t)
      args.push_back(B.CreateLoad(ptr_, B.CreateConstGEP1_64(ptr_, entry->getArg(0), t), def_.tensors[t].name));
    args.push_back(err);
    args.push_back(entry->getArg(1));
    B.CreateCall(body.fn, args);
    B.CreateRet(B.CreateLoad(i32_, err));
    dib_.finalize();
    return std::move(module_);
  }

 private:
  struct Env {
    llvm::Function* fn = nullptr;
    llvm::DISubprogram* sp = nullptr;
    std::vector<llvm::Value*> tensors;
    llvm::Value* err = nullptr;
    llvm::Value* pool = nullptr;
    std::vector<llvm::Value*> iters;  // by iterator number; null where not in scope
    bool in_parallel = false;
    std::vector<llvm::Value*> stmt_args;  // the current statement's index values (i64)
  };

  // A function taking (tensors..., err, pool, extra i64...) with noalias tensors.
  Env make_impl(const std::string& name, const std::vector<std::string>& extra) {
    std::vector<llvm::Type*> params(def_.tensors.size() + 2, ptr_);
    for (size_t i = 0; i < extra.size(); ++i) params.push_back(i64_);
    auto* type = llvm::FunctionType::get(B.getVoidTy(), params, false);
    Env env;
    env.fn = llvm::Function::Create(type, llvm::Function::InternalLinkage, name, *module_);
    env.fn->addFnAttr(llvm::Attribute::NoUnwind);
    env.fn->addFnAttr(llvm::Attribute::NoInline);
    for (size_t t = 0; t < def_.tensors.size(); ++t) {
      env.fn->addParamAttr(unsigned(t), llvm::Attribute::NoAlias);
      env.fn->getArg(unsigned(t))->setName(def_.tensors[t].name);
      env.tensors.push_back(env.fn->getArg(unsigned(t)));
    }
    env.err = env.fn->getArg(unsigned(def_.tensors.size()));
    env.err->setName("err");
    env.pool = env.fn->getArg(unsigned(def_.tensors.size() + 1));
    env.pool->setName("pool");
    for (size_t i = 0; i < extra.size(); ++i) env.fn->getArg(unsigned(def_.tensors.size() + 2 + i))->setName(extra[i]);
    env.iters.assign(nest_.iter_names.size(), nullptr);
    auto* sub_type = dib_.createSubroutineType(dib_.getOrCreateTypeArray({}));
    env.sp = dib_.createFunction(file_, name, name, file_, 1, sub_type, 1, llvm::DINode::FlagZero,
                                 llvm::DISubprogram::SPFlagDefinition);
    env.fn->setSubprogram(env.sp);
    B.SetInsertPoint(llvm::BasicBlock::Create(C, "entry", env.fn));
    B.SetCurrentDebugLocation(llvm::DILocation::get(C, 1, 0, env.sp));
    return env;
  }

  void locate(const LoopNode& n, const Env& env) {
    int line = 1;
    if (req_.node_lines)
      if (auto it = req_.node_lines->find(&n); it != req_.node_lines->end()) line = it->second;
    B.SetCurrentDebugLocation(llvm::DILocation::get(C, unsigned(line), 0, env.sp));
  }

  void emit_children(const std::vector<LoopNode>& nodes, Env& env) {
    for (const LoopNode& n : nodes) emit(n, env);
  }

  void emit(const LoopNode& n, Env& env) {
    switch (n.kind) {
      case LoopNode::Kind::Block: emit_children(n.children, env); return;
      case LoopNode::Kind::For:
        if (n.annot.parallel && !env.in_parallel) emit_parallel_for(n, env);
        else if (!n.annot.accumulate_in_registers || !emit_register_tile(n, env)) emit_for(n, env);
        return;
      case LoopNode::Kind::If: emit_if(n, env); return;
      case LoopNode::Kind::Call: emit_call(n, env); return;
    }
  }

  // ---- loop control -------------------------------------------------------------------

  llvm::Value* lx(const LExpr& e, Env& env) {
    using Op = LExpr::Op;
    auto a = [&](size_t i) { return as_int(lx(e.args[i], env)); };
    switch (e.op) {
      case Op::Int: return B.getInt64(uint64_t(e.value));
      case Op::Iter: return env.iters[size_t(e.value)];
      case Op::Param: return B.getInt64(uint64_t(shapes_.sizes.at(nest_.params[size_t(e.value)])));
      case Op::Add: return B.CreateNSWAdd(a(0), a(1));
      case Op::Sub: return B.CreateNSWSub(a(0), a(1));
      case Op::Mul: return B.CreateNSWMul(a(0), a(1));
      case Op::Neg: return B.CreateNSWNeg(a(0));
      case Op::FloorDiv: {
        llvm::Value *x = a(0), *y = a(1);
        llvm::Value* q = B.CreateSDiv(x, y);
        llvm::Value* r = B.CreateSRem(x, y);
        llvm::Value* adjust = B.CreateAnd(B.CreateICmpNE(r, B.getInt64(0)),
                                          B.CreateICmpSLT(B.CreateXor(r, y), B.getInt64(0)));
        return B.CreateSub(q, B.CreateZExt(adjust, i64_));
      }
      case Op::ExactDiv: return B.CreateExactSDiv(a(0), a(1));
      case Op::Rem: return B.CreateSRem(a(0), a(1));
      case Op::Min: { llvm::Value *x = a(0), *y = a(1); return B.CreateSelect(B.CreateICmpSLT(x, y), x, y); }
      case Op::Max: { llvm::Value *x = a(0), *y = a(1); return B.CreateSelect(B.CreateICmpSGT(x, y), x, y); }
      case Op::Select: return B.CreateSelect(as_bool(lx(e.args[0], env)), a(1), a(2));
      case Op::Eq: return B.CreateICmpEQ(a(0), a(1));
      case Op::Le: return B.CreateICmpSLE(a(0), a(1));
      case Op::Lt: return B.CreateICmpSLT(a(0), a(1));
      case Op::Ge: return B.CreateICmpSGE(a(0), a(1));
      case Op::Gt: return B.CreateICmpSGT(a(0), a(1));
      case Op::And: return B.CreateAnd(as_bool(lx(e.args[0], env)), as_bool(lx(e.args[1], env)));
      case Op::Or: return B.CreateOr(as_bool(lx(e.args[0], env)), as_bool(lx(e.args[1], env)));
    }
    return nullptr;
  }
  llvm::Value* as_int(llvm::Value* v) { return v->getType()->isIntegerTy(1) ? B.CreateZExt(v, i64_) : v; }
  llvm::Value* as_bool(llvm::Value* v) { return v->getType()->isIntegerTy(1) ? v : B.CreateICmpNE(v, B.getInt64(0)); }

  llvm::MDNode* loop_metadata(const LoopNode& n) {
    std::vector<llvm::Metadata*> ops = {nullptr};
    auto flag = [&](const char* name) { ops.push_back(llvm::MDNode::get(C, {llvm::MDString::get(C, name)})); };
    auto value = [&](const char* name, llvm::Metadata* v) {
      ops.push_back(llvm::MDNode::get(C, {llvm::MDString::get(C, name), v}));
    };
    flag("llvm.loop.mustprogress");
    if (n.annot.vector_width > 1) {
      value("llvm.loop.vectorize.enable", llvm::ConstantAsMetadata::get(B.getTrue()));
      value("llvm.loop.vectorize.width", llvm::ConstantAsMetadata::get(B.getInt32(uint32_t(n.annot.vector_width))));
    }
    // Full unrolling only where the trip count is a constant (a partial register tile is not).
    if (n.annot.unroll < 0 && n.init.is_int() && n.upper.is_int()) flag("llvm.loop.unroll.full");
    else if (n.annot.unroll > 1)
      value("llvm.loop.unroll.count", llvm::ConstantAsMetadata::get(B.getInt32(uint32_t(n.annot.unroll))));
    llvm::MDNode* md = llvm::MDNode::getDistinct(C, ops);
    md->replaceOperandWith(0, md);
    return md;
  }

  std::string loop_name(const LoopNode& n) { return "L" + std::to_string(n.loop_id); }

  // for (iter = lo; iter <= hi; iter += stride), rotated: a guard, then a do-while.
  void emit_loop(const LoopNode& n, Env& env, llvm::Value* lo, llvm::Value* hi,
                 const std::function<void(llvm::Value*)>& body) {
    std::string name = loop_name(n);
    llvm::BasicBlock* pre = B.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(C, name + ".body", env.fn);
    auto* exit = llvm::BasicBlock::Create(C, name + ".exit", env.fn);
    B.CreateCondBr(B.CreateICmpSLE(lo, hi), header, exit);
    B.SetInsertPoint(header);
    llvm::PHINode* iv = B.CreatePHI(i64_, 2, name + ".iv");
    iv->addIncoming(lo, pre);
    body(iv);
    locate(n, env);
    llvm::Value* next = B.CreateNSWAdd(iv, B.getInt64(uint64_t(n.stride)), name + ".next");
    llvm::BranchInst* br = B.CreateCondBr(B.CreateICmpSLE(next, hi), header, exit);
    br->setMetadata(llvm::LLVMContext::MD_loop, loop_metadata(n));
    iv->addIncoming(next, B.GetInsertBlock());
    B.SetInsertPoint(exit);
  }

  void emit_for(const LoopNode& n, Env& env) {
    locate(n, env);
    llvm::Value* lo = as_int(lx(n.init, env));
    llvm::Value* hi = as_int(lx(n.upper, env));
    emit_loop(n, env, lo, hi, [&](llvm::Value* iv) {
      env.iters[size_t(n.iter)] = iv;
      emit_children(n.children, env);
      env.iters[size_t(n.iter)] = nullptr;
    });
  }

  // The loop's iterations become [0, count) for the thread pool; the outlined function
  // receives the tensors, every iterator in scope, the first value and the stride.
  void emit_parallel_for(const LoopNode& n, Env& env) {
    locate(n, env);
    llvm::Value* lo = as_int(lx(n.init, env));
    llvm::Value* hi = as_int(lx(n.upper, env));
    llvm::Value* count = B.CreateSelect(
        B.CreateICmpSLE(lo, hi),
        B.CreateAdd(B.CreateSDiv(B.CreateSub(hi, lo), B.getInt64(uint64_t(n.stride))), B.getInt64(1)), B.getInt64(0));

    size_t nt = def_.tensors.size(), ni = nest_.iter_names.size();
    std::vector<llvm::Type*> fields(nt + 2, ptr_);
    for (size_t i = 0; i < ni + 1; ++i) fields.push_back(i64_);
    auto* ctx_type = llvm::StructType::get(C, fields);
    llvm::IRBuilder<> entry_builder(&env.fn->getEntryBlock(), env.fn->getEntryBlock().begin());
    llvm::Value* ctx = entry_builder.CreateAlloca(ctx_type, nullptr, loop_name(n) + ".ctx");
    for (size_t t = 0; t < nt; ++t) B.CreateStore(env.tensors[t], B.CreateStructGEP(ctx_type, ctx, unsigned(t)));
    B.CreateStore(env.err, B.CreateStructGEP(ctx_type, ctx, unsigned(nt)));
    B.CreateStore(env.pool, B.CreateStructGEP(ctx_type, ctx, unsigned(nt + 1)));
    for (size_t i = 0; i < ni; ++i)
      B.CreateStore(env.iters[i] ? env.iters[i] : B.getInt64(0), B.CreateStructGEP(ctx_type, ctx, unsigned(nt + 2 + i)));
    B.CreateStore(lo, B.CreateStructGEP(ctx_type, ctx, unsigned(nt + 2 + ni)));

    // The implementation: noalias tensors, iterators by value, [begin, end).
    llvm::IRBuilderBase::InsertPoint saved = B.saveIP();
    std::vector<std::string> extra;
    for (size_t i = 0; i < ni; ++i) extra.push_back(nest_.iter_names[i] + ".outer");
    extra.push_back("lo");
    extra.push_back("begin");
    extra.push_back("end");
    std::string name = "tcs_parallel_" + loop_name(n);
    Env inner = make_impl(name + "_body", extra);
    inner.in_parallel = true;
    for (size_t i = 0; i < ni; ++i)
      if (env.iters[i]) inner.iters[i] = inner.fn->getArg(unsigned(nt + 2 + i));
    llvm::Value* first = inner.fn->getArg(unsigned(nt + 2 + ni));
    llvm::Value* begin = inner.fn->getArg(unsigned(nt + 3 + ni));
    llvm::Value* end = inner.fn->getArg(unsigned(nt + 4 + ni));
    locate(n, inner);
    LoopNode chunk = n;  // the same loop over the chunk's iterations
    chunk.stride = 1;
    emit_loop(chunk, inner, begin, B.CreateSub(end, B.getInt64(1)), [&](llvm::Value* j) {
      inner.iters[size_t(n.iter)] = B.CreateNSWAdd(first, B.CreateNSWMul(j, B.getInt64(uint64_t(n.stride))), nest_.iter_names[size_t(n.iter)]);
      emit_children(n.children, inner);
    });
    B.CreateRetVoid();

    // The trampoline the pool calls: unpack the context, call the implementation.
    auto* tramp_type = llvm::FunctionType::get(B.getVoidTy(), {ptr_, i64_, i64_}, false);
    llvm::Function* tramp = llvm::Function::Create(tramp_type, llvm::Function::InternalLinkage, name, *module_);
    tramp->addFnAttr(llvm::Attribute::NoUnwind);
    auto* tramp_sp = dib_.createFunction(file_, name, name, file_, 1,
                                         dib_.createSubroutineType(dib_.getOrCreateTypeArray({})), 1,
                                         llvm::DINode::FlagZero, llvm::DISubprogram::SPFlagDefinition);
    tramp->setSubprogram(tramp_sp);
    B.SetInsertPoint(llvm::BasicBlock::Create(C, "entry", tramp));
    B.SetCurrentDebugLocation(llvm::DILocation::get(C, 1, 0, tramp_sp));
    std::vector<llvm::Value*> args;
    llvm::Value* tctx = tramp->getArg(0);
    for (size_t f = 0; f < fields.size(); ++f)
      args.push_back(B.CreateLoad(fields[f], B.CreateStructGEP(ctx_type, tctx, unsigned(f))));
    args.push_back(tramp->getArg(1));
    args.push_back(tramp->getArg(2));
    B.CreateCall(inner.fn, args);
    B.CreateRetVoid();

    B.restoreIP(saved);
    locate(n, env);
    B.CreateCall(parallel_for_, {env.pool, tramp, ctx, count});
  }

  void emit_if(const LoopNode& n, Env& env) {
    llvm::Value* c = as_bool(lx(n.cond, env));
    auto* then_bb = llvm::BasicBlock::Create(C, "if.then", env.fn);
    auto* else_bb = llvm::BasicBlock::Create(C, "if.else", env.fn);
    auto* merge = llvm::BasicBlock::Create(C, "if.end", env.fn);
    B.CreateCondBr(c, then_bb, else_bb);
    B.SetInsertPoint(then_bb);
    emit_children(n.children, env);
    B.CreateBr(merge);
    B.SetInsertPoint(else_bb);
    emit_children(n.else_children, env);
    B.CreateBr(merge);
    B.SetInsertPoint(merge);
  }


  // ---- register tiles -----------------------------------------------------------------
  //
  // A reduction loop around fully unrolled register loops: the accumulators of the whole
  // tile are loaded once before the loop, carried in SSA values (registers) through it and
  // stored once after it; the vector loop's lanes become explicit vectors. This is the
  // micro-kernel of a GEMM, derived from the loop nest rather than written by hand. When
  // the nest does not have that shape, the caller emits ordinary loops.

  // d(flat offset)/d(iterator) of a read; nullopt when it is not a constant.
  std::optional<int64_t> read_stride(const Expr& e, const std::vector<std::optional<int64_t>>& darg) {
    std::vector<int64_t> strides = shapes_.tensors[size_t(e.ref_id)].strides();
    int64_t total = 0;
    for (size_t d = 0; d < e.args.size(); ++d) {
      const AccessConstraint* ac = nullptr;
      for (const AccessConstraint& c : stmt_->constraints)
        if (c.subscript == e.args[d].get()) ac = &c;
      if (!ac) return std::nullopt;
      if (!ac->affine || ac->data_dependent) {
        for (int i : ac->indices)
          if (!darg[size_t(i)] || *darg[size_t(i)] != 0) return std::nullopt;
        continue;
      }
      for (auto [idx, coef] : ac->coefs) {
        if (!darg[size_t(idx)]) return std::nullopt;
        total += coef * *darg[size_t(idx)] * strides[d];
      }
    }
    return total;
  }

  // The right-hand sides the vector form handles: +, -, * and / over reads and float
  // literals, all in the left-hand type; every read broadcast or contiguous along lanes.
  bool vectorisable(const Expr& e, ScalarType t, const std::vector<std::optional<int64_t>>& dv) {
    if (e.type != t) return false;
    switch (e.kind) {
      case ExprKind::FloatLiteral: return true;
      case ExprKind::Access:
      case ExprKind::Name: {
        if (e.ref != NameRef::Tensor) return false;
        if (e.kind == ExprKind::Name) return true;
        auto s = read_stride(e, dv);
        return s && (*s == 0 || *s == 1);
      }
      case ExprKind::Binary:
        if (e.op != TokenKind::Plus && e.op != TokenKind::Minus && e.op != TokenKind::Star && e.op != TokenKind::Slash)
          return false;
        return vectorisable(*e.args[0], t, dv) && vectorisable(*e.args[1], t, dv);
      default: return false;
    }
  }

  llvm::Value* vexpr(const Expr& e, Env& env, int lanes, const std::vector<std::optional<int64_t>>& dv) {
    llvm::Type* st = reg_type(e.type);
    auto splat = [&](llvm::Value* v) { return lanes > 1 ? B.CreateVectorSplat(unsigned(lanes), v) : v; };
    switch (e.kind) {
      case ExprKind::FloatLiteral: return splat(llvm::ConstantFP::get(st, double(float(e.float_value))));
      case ExprKind::Name: return splat(load(e.ref_id, B.getInt64(0), env));
      case ExprKind::Access: {
        llvm::Value* off = read_offset(e, env);
        if (lanes == 1 || *read_stride(e, dv) == 0) return splat(load(e.ref_id, off, env));
        auto* vt = llvm::FixedVectorType::get(st, unsigned(lanes));
        return B.CreateAlignedLoad(vt, element_ptr(e.ref_id, off, env), llvm::Align(scalar_type_bytes(e.type)), e.name);
      }
      case ExprKind::Binary: {
        llvm::Value* a = vexpr(*e.args[0], env, lanes, dv);
        llvm::Value* b = vexpr(*e.args[1], env, lanes, dv);
        llvm::FastMathFlags fmf;
        fmf.setAllowContract();
        llvm::IRBuilderBase::FastMathFlagGuard guard(B);
        B.setFastMathFlags(fmf);
        switch (e.op) {
          case TokenKind::Plus: return B.CreateFAdd(a, b);
          case TokenKind::Minus: return B.CreateFSub(a, b);
          case TokenKind::Star: return B.CreateFMul(a, b);
          default: return B.CreateFDiv(a, b);
        }
      }
      default: return nullptr;
    }
  }

  bool emit_register_tile(const LoopNode& f, Env& env) {
    // The shape: f -> register loops (constant trips) -> one statement call.
    std::vector<const LoopNode*> chain;
    std::vector<int64_t> trips;
    const LoopNode* cur = &f;
    while (cur->children.size() == 1 && cur->children[0].kind == LoopNode::Kind::For && cur->children[0].annot.register_tile) {
      cur = &cur->children[0];
      auto span = constant_span(cur->init, cur->upper);
      if (!span || *span < 0) return false;
      chain.push_back(cur);
      trips.push_back(*span / cur->stride + 1);
    }
    if (chain.empty() || cur->children.size() != 1 || cur->children[0].kind != LoopNode::Kind::Call) return false;
    const LoopNode& call = cur->children[0];
    const PolyStmt& ps = nest_.stmts[size_t(call.stmt)];
    StmtSemantics sem = stmt_semantics(def_, ps);
    if (!sem.combines || sem.op != ast::ReduceOp::Sum || !scalar_type_is_float(sem.type)) return false;
    stmt_ = &def_.stmts[size_t(ps.source_stmt)];
    const Expr& rhs = *stmt_->ast->rhs;

    // Derivatives of the statement's index values along the reduction and the lanes.
    const LoopNode* vloop = chain.back()->annot.vector_width > 1 ? chain.back() : nullptr;
    std::vector<std::optional<int64_t>> dk, dv;
    for (const LExpr& a : call.args) {
      dk.push_back(iter_coefficient(a, f.iter));
      dv.push_back(vloop ? iter_coefficient(a, vloop->iter) : std::optional<int64_t>(0));
    }
    int lanes = 1;
    if (vloop && vloop->stride == 1 && trips.back() % vloop->annot.vector_width == 0) lanes = vloop->annot.vector_width;
    std::vector<int64_t> lhs_strides = shapes_.tensors[size_t(sem.lhs_tensor)].strides();
    int64_t lhs_dk = 0, lhs_dv = 0;
    for (int d = 0; d < stmt_->lhs_rank; ++d) {
      if (!dk[size_t(d)] || !dv[size_t(d)]) return false;
      lhs_dk += *dk[size_t(d)] * lhs_strides[size_t(d)];
      lhs_dv += *dv[size_t(d)] * lhs_strides[size_t(d)];
    }
    if (lhs_dk != 0) return false;  // the accumulators must not move with the reduction
    if (lanes > 1 && (lhs_dv != 1 || !vectorisable(rhs, sem.type, dv))) lanes = 1;
    if (lanes == 1 && !vectorisable(rhs, sem.type, std::vector<std::optional<int64_t>>(dv.size(), 0))) return false;

    // Every point of the register tile, as offsets from the loops' first values (the
    // vector loop stepping by `lanes`).
    std::vector<std::vector<int64_t>> points = {{}};
    for (size_t c = 0; c < chain.size(); ++c) {
      const LoopNode* l = chain[c];
      int64_t step = l == vloop ? l->stride * lanes : l->stride;
      std::vector<std::vector<int64_t>> next;
      for (const auto& p : points)
        for (int64_t v = 0; v < trips[c] * l->stride; v += step) {
          next.push_back(p);
          next.back().push_back(v);
        }
      points = std::move(next);
    }
    if (points.size() > 64) return false;  // more accumulators than registers: not a register tile
    std::vector<llvm::Value*> first(chain.size());
    auto at_point = [&](const std::vector<int64_t>& p) {
      for (size_t i = 0; i < chain.size(); ++i)
        env.iters[size_t(chain[i]->iter)] = B.CreateNSWAdd(first[i], B.getInt64(uint64_t(p[i])));
      env.stmt_args.clear();
      for (const LExpr& a : call.args) env.stmt_args.push_back(as_int(lx(a, env)));
      std::vector<llvm::Value*> lhs(env.stmt_args.begin(), env.stmt_args.begin() + stmt_->lhs_rank);
      return offset(sem.lhs_tensor, lhs);
    };
    llvm::Type* st = reg_type(sem.type);
    llvm::Type* acc_type = lanes > 1 ? llvm::FixedVectorType::get(st, unsigned(lanes)) : st;
    llvm::Align align(scalar_type_bytes(sem.type));

    locate(f, env);
    llvm::Value* lo = as_int(lx(f.init, env));
    llvm::Value* hi = as_int(lx(f.upper, env));
    env.iters[size_t(f.iter)] = lo;  // the accumulators' addresses do not depend on it
    for (size_t i = 0; i < chain.size(); ++i) {  // the register loops' first values, outside f
      first[i] = as_int(lx(chain[i]->init, env));
      env.iters[size_t(chain[i]->iter)] = first[i];
    }
    locate(call, env);
    std::vector<llvm::Value*> init;
    for (const auto& p : points)
      init.push_back(B.CreateAlignedLoad(acc_type, element_ptr(sem.lhs_tensor, at_point(p), env), align, "acc"));

    std::string name = loop_name(f);
    llvm::BasicBlock* pre = B.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(C, name + ".body", env.fn);
    auto* exit = llvm::BasicBlock::Create(C, name + ".exit", env.fn);
    locate(f, env);
    B.CreateCondBr(B.CreateICmpSLE(lo, hi), header, exit);
    B.SetInsertPoint(header);
    llvm::PHINode* iv = B.CreatePHI(i64_, 2, name + ".iv");
    iv->addIncoming(lo, pre);
    std::vector<llvm::PHINode*> acc;
    for (llvm::Value* v : init) {
      acc.push_back(B.CreatePHI(acc_type, 2, "acc"));
      acc.back()->addIncoming(v, pre);
    }
    env.iters[size_t(f.iter)] = iv;
    locate(call, env);
    std::vector<llvm::Value*> updated;
    {
      llvm::FastMathFlags fmf;
      fmf.setAllowContract();
      fmf.setAllowReassoc();
      for (size_t i = 0; i < points.size(); ++i) {
        at_point(points[i]);
        llvm::Value* v = vexpr(rhs, env, lanes, dv);
        llvm::IRBuilderBase::FastMathFlagGuard guard(B);
        B.setFastMathFlags(fmf);
        updated.push_back(B.CreateFAdd(acc[i], v, "acc"));
      }
    }
    locate(f, env);
    llvm::Value* next = B.CreateNSWAdd(iv, B.getInt64(uint64_t(f.stride)), name + ".next");
    llvm::BranchInst* br = B.CreateCondBr(B.CreateICmpSLE(next, hi), header, exit);
    LoopNode plain = f;
    plain.annot = LoopAnnotation{};
    br->setMetadata(llvm::LLVMContext::MD_loop, loop_metadata(plain));
    llvm::BasicBlock* latch = B.GetInsertBlock();
    iv->addIncoming(next, latch);
    for (size_t i = 0; i < acc.size(); ++i) acc[i]->addIncoming(updated[i], latch);

    B.SetInsertPoint(exit);
    env.iters[size_t(f.iter)] = lo;
    locate(call, env);
    std::vector<llvm::Value*> final_values;
    for (size_t i = 0; i < points.size(); ++i) {
      llvm::PHINode* phi = B.CreatePHI(acc_type, 2, "acc");
      phi->addIncoming(init[i], pre);
      phi->addIncoming(updated[i], latch);
      final_values.push_back(phi);
    }
    for (size_t i = 0; i < points.size(); ++i)
      B.CreateAlignedStore(final_values[i], element_ptr(sem.lhs_tensor, at_point(points[i]), env), align);
    env.iters[size_t(f.iter)] = nullptr;
    for (const LoopNode* l : chain) env.iters[size_t(l->iter)] = nullptr;
    return true;
  }

  // ---- statements ---------------------------------------------------------------------

  llvm::Type* reg_type(ScalarType t) {
    switch (t) {
      case ScalarType::Bool: return B.getInt1Ty();
      case ScalarType::UInt8: case ScalarType::Int8: return B.getInt8Ty();
      case ScalarType::UInt16: case ScalarType::Int16: return B.getInt16Ty();
      case ScalarType::UInt32: case ScalarType::Int32: return i32_;
      case ScalarType::UInt64: case ScalarType::Int64: return i64_;
      case ScalarType::Float16: return B.getHalfTy();
      case ScalarType::Float32: return B.getFloatTy();
      case ScalarType::Float64: return B.getDoubleTy();
    }
    return nullptr;
  }
  llvm::Type* mem_type(ScalarType t) { return t == ScalarType::Bool ? B.getInt8Ty() : reg_type(t); }

  llvm::Value* element_ptr(int t, llvm::Value* offset, Env& env) {
    return B.CreateInBoundsGEP(mem_type(def_.tensors[size_t(t)].type), env.tensors[size_t(t)], offset);
  }
  llvm::Value* load(int t, llvm::Value* offset, Env& env) {
    ScalarType ty = def_.tensors[size_t(t)].type;
    llvm::Value* v = B.CreateLoad(mem_type(ty), element_ptr(t, offset, env), def_.tensors[size_t(t)].name);
    return ty == ScalarType::Bool ? B.CreateICmpNE(v, B.getInt8(0)) : v;
  }
  void store(int t, llvm::Value* offset, llvm::Value* v, Env& env) {
    if (def_.tensors[size_t(t)].type == ScalarType::Bool) v = B.CreateZExt(v, B.getInt8Ty());
    B.CreateStore(v, element_ptr(t, offset, env));
  }

  // Row-major offset from per-dimension coordinates (i64).
  llvm::Value* offset(int t, const std::vector<llvm::Value*>& coords) {
    std::vector<int64_t> strides = shapes_.tensors[size_t(t)].strides();
    const TensorShape& sh = shapes_.tensors[size_t(t)];
    llvm::Value* off = B.getInt64(0);
    for (size_t d = 0; d < coords.size(); ++d) {
      llvm::Value* c = coords[d];
      if (sh.min[d] != 0) c = B.CreateNSWSub(c, B.getInt64(uint64_t(sh.min[d])));
      off = B.CreateNSWAdd(off, B.CreateNSWMul(c, B.getInt64(uint64_t(strides[d]))));
    }
    return off;
  }

  void set_error(int bit, llvm::Value* when, Env& env) {
    auto* yes = llvm::BasicBlock::Create(C, "error", env.fn);
    auto* cont = llvm::BasicBlock::Create(C, "ok", env.fn);
    B.CreateCondBr(when, yes, cont, llvm::MDBuilder(C).createBranchWeights(1, 1000000));
    B.SetInsertPoint(yes);
    B.CreateAtomicRMW(llvm::AtomicRMWInst::Or, env.err, B.getInt32(uint32_t(bit)), llvm::MaybeAlign(4),
                      llvm::AtomicOrdering::Monotonic);
    B.CreateBr(cont);
    B.SetInsertPoint(cont);
  }

  void emit_call(const LoopNode& n, Env& env) {
    locate(n, env);
    const PolyStmt& ps = nest_.stmts[size_t(n.stmt)];
    StmtSemantics sem = stmt_semantics(def_, ps);
    stmt_ = &def_.stmts[size_t(ps.source_stmt)];
    env.stmt_args.clear();
    for (const LExpr& a : n.args) env.stmt_args.push_back(as_int(lx(a, env)));
    std::vector<llvm::Value*> lhs(env.stmt_args.begin(), env.stmt_args.begin() + stmt_->lhs_rank);
    llvm::Value* off = offset(sem.lhs_tensor, lhs);
    llvm::Type* ty = reg_type(sem.type);
    if (sem.is_init) {
      llvm::Value* id = scalar_type_is_float(sem.type) ? llvm::ConstantFP::get(ty, sem.identity_f)
                                                       : llvm::ConstantInt::get(ty, uint64_t(sem.identity_i));
      store(sem.lhs_tensor, off, id, env);
      return;
    }
    const Expr& rhs = *stmt_->ast->rhs;
    llvm::Value* v = convert(expr(rhs, env), rhs.type, sem.type);
    if (sem.combines) v = combine(sem, load(sem.lhs_tensor, off, env), v);
    store(sem.lhs_tensor, off, v, env);
  }

  llvm::Value* combine(const StmtSemantics& s, llvm::Value* acc, llvm::Value* v) {
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
        if (fl) {  // a NaN wins, as in the interpreter
          B.clearFastMathFlags();
          llvm::Value* better = min ? B.CreateFCmpOLT(v, acc) : B.CreateFCmpOGT(v, acc);
          return B.CreateSelect(B.CreateOr(better, B.CreateFCmpUNO(v, v)), v, acc);
        }
        bool sign = scalar_type_is_signed(s.type);
        llvm::Value* better = min ? (sign ? B.CreateICmpSLT(v, acc) : B.CreateICmpULT(v, acc))
                                  : (sign ? B.CreateICmpSGT(v, acc) : B.CreateICmpUGT(v, acc));
        return B.CreateSelect(better, v, acc);
      }
      default: return v;
    }
  }

  // ---- expressions --------------------------------------------------------------------

  llvm::Value* convert(llvm::Value* v, ScalarType from, ScalarType to) {
    if (from == to) return v;
    bool ff = scalar_type_is_float(from), tf = scalar_type_is_float(to);
    llvm::Type* t = reg_type(to);
    if (to == ScalarType::Bool)
      return ff ? B.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0))
                : B.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
    if (ff && tf) return B.CreateFPCast(v, t);
    if (ff) {
      auto id = scalar_type_is_signed(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
      return B.CreateIntrinsic(id, {t, v->getType()}, {v});
    }
    bool from_signed = from != ScalarType::Bool && scalar_type_is_signed(from);
    if (tf) return from_signed ? B.CreateSIToFP(v, t) : B.CreateUIToFP(v, t);
    return B.CreateIntCast(v, t, from_signed);
  }

  llvm::Value* expr(const Expr& e, Env& env) {
    switch (e.kind) {
      case ExprKind::IntLiteral: return llvm::ConstantInt::get(reg_type(e.type), uint64_t(e.int_value));
      case ExprKind::FloatLiteral: return llvm::ConstantFP::get(reg_type(e.type), double(float(e.float_value)));
      case ExprKind::Name:
        if (e.ref == NameRef::Index)  // index expressions are int32
          return convert(B.CreateTrunc(env.stmt_args[size_t(e.ref_id)], i32_), ScalarType::Int32, e.type);
        if (e.ref == NameRef::SizeParam)
          return convert(B.getInt32(uint32_t(shapes_.sizes.at(def_.size_params[size_t(e.ref_id)]))), ScalarType::Int32, e.type);
        return load(e.ref_id, B.getInt64(0), env);
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

  llvm::Value* as_bool_value(llvm::Value* v, ScalarType t) { return convert(v, t, ScalarType::Bool); }

  llvm::Value* less(llvm::Value* a, llvm::Value* b, ScalarType t) {
    if (scalar_type_is_float(t)) return B.CreateFCmpOLT(a, b);
    if (t == ScalarType::Bool || !scalar_type_is_signed(t)) return B.CreateICmpULT(a, b);
    return B.CreateICmpSLT(a, b);
  }

  llvm::Value* read(const Expr& e, Env& env) { return load(e.ref_id, read_offset(e, env), env); }

  llvm::Value* read_offset(const Expr& e, Env& env) {
    int t = e.ref_id;
    const TensorShape& sh = shapes_.tensors[size_t(t)];
    std::vector<llvm::Value*> coords;
    for (size_t d = 0; d < e.args.size(); ++d) {
      const Expr* s = e.args[d].get();
      const AccessConstraint* ac = nullptr;
      for (const AccessConstraint& c : stmt_->constraints)
        if (c.subscript == s) ac = &c;
      if (ac && ac->affine && !ac->data_dependent) {
        if (auto rest = ac->rest.eval(shapes_.sizes)) {
          llvm::Value* c = B.getInt64(uint64_t(*rest));
          for (auto [idx, coef] : ac->coefs)
            if (coef) c = B.CreateNSWAdd(c, B.CreateNSWMul(env.stmt_args[size_t(idx)], B.getInt64(uint64_t(coef))));
          coords.push_back(c);
          continue;
        }
      }
      // Computed at run time and checked: out of range sets the error bit and reads the
      // first element instead.
      llvm::Value* v = expr(*s, env);
      ScalarType st = s->type;
      llvm::Value* c;
      if (st == ScalarType::UInt64) c = B.CreateSelect(B.CreateICmpSLT(v, B.getInt64(0)), B.getInt64(INT64_MAX), v);
      else c = convert(v, st, ScalarType::Int64);
      int64_t lo = sh.min[d], hi = sh.min[d] + sh.extent[d] - 1;
      llvm::Value* bad = B.CreateOr(B.CreateICmpSLT(c, B.getInt64(uint64_t(lo))), B.CreateICmpSGT(c, B.getInt64(uint64_t(hi))));
      set_error(kErrSubscriptOutOfRange, bad, env);
      coords.push_back(B.CreateSelect(bad, B.getInt64(uint64_t(lo)), c));
    }
    return offset(t, coords);
  }

  llvm::Value* call_builtin(const Expr& e, Env& env) {
    const Builtin& b = builtins()[size_t(e.ref_id)];
    llvm::Intrinsic::ID id = float_intrinsic(b.name);
    std::vector<llvm::Value*> args;
    if (id != llvm::Intrinsic::not_intrinsic && e.type == ScalarType::Float32) {
      for (const auto& a : e.args) args.push_back(convert(expr(*a, env), a->type, ScalarType::Float32));
      return B.CreateIntrinsic(id, {B.getFloatTy()}, args);
    }
    if (b.name == "tanh" && e.type == ScalarType::Float32) {
      llvm::Value* x = convert(expr(*e.args[0], env), e.args[0]->type, ScalarType::Float32);
      llvm::FunctionCallee f = module_->getOrInsertFunction(
          "tanhf", llvm::FunctionType::get(B.getFloatTy(), {B.getFloatTy()}, false));
      return B.CreateCall(f, {x});
    }
    for (const auto& a : e.args) args.push_back(convert(expr(*a, env), a->type, ScalarType::Float64));
    std::vector<llvm::Type*> params(args.size(), B.getDoubleTy());
    llvm::FunctionCallee f = module_->getOrInsertFunction(
        "tcs_builtin_" + std::string(b.name), llvm::FunctionType::get(B.getDoubleTy(), params, false));
    return convert(B.CreateCall(f, args), ScalarType::Float64, e.type);
  }

  llvm::Value* binary(const Expr& e, Env& env) {
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
        if (fl) return div ? B.CreateFDiv(a, b) : B.CreateFRem(a, b);
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

  llvm::LLVMContext& C;
  const LlvmEmitRequest& req_;
  const SemaDef& def_;
  const DefShapes& shapes_;
  const LoopNest& nest_;
  std::unique_ptr<llvm::Module> module_;
  llvm::IRBuilder<> B;
  llvm::DIBuilder dib_;
  llvm::DIFile* file_ = nullptr;
  llvm::DICompileUnit* cu_ = nullptr;
  llvm::PointerType* ptr_ = nullptr;
  llvm::IntegerType* i64_ = nullptr;
  llvm::IntegerType* i32_ = nullptr;
  llvm::Function* parallel_for_ = nullptr;
  const SemaStmt* stmt_ = nullptr;
};

}  // namespace

std::unique_ptr<llvm::Module> emit_llvm_module(llvm::LLVMContext& ctx, const LlvmEmitRequest& req) {
  return Emitter(ctx, req).run();
}

}  // namespace tcs
