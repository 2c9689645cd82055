// LoopNest -> LLVM IR. Each tensor is a noalias pointer argument of the function that
// holds the loops, so LLVM may vectorise and keep values in registers; a parallel loop is
// outlined into a function that the runtime's thread pool calls with a range of
// iterations. This file: the functions, the loops and memory; statements and expressions
// are in LlvmExpressions.cpp, register tiles in LlvmRegisterTile.cpp, packs in LlvmPack.cpp.
#include "codegen/LlvmEmitterImpl.h"

#include <utility>

#include "codegen/LlvmStreamStores.h"
#include "lang/Builtins.h"
#include "loopnest/Affine.h"

namespace tcs {

void* builtin_symbol_address(const std::string& symbol) {
  const std::string prefix = "tcs_builtin_";
  if (symbol.compare(0, prefix.size(), prefix) != 0) return nullptr;
  const Builtin* b = builtin_find(symbol.substr(prefix.size()));
  if (!b) return nullptr;
  if (b->fn1) return reinterpret_cast<void*>(b->fn1);
  if (b->fn2) return reinterpret_cast<void*>(b->fn2);
  if (b->fn3) return reinterpret_cast<void*>(b->fn3);
  return reinterpret_cast<void*>(b->fn4);
}

std::unique_ptr<llvm::Module> emit_llvm_module(llvm::LLVMContext& ctx, const LlvmEmitRequest& req) {
  return llvm_emit::Emitter(ctx, req).run();
}

FoldedInitialisations folded_initialisations(const LlvmEmitRequest& req) {
  llvm::LLVMContext ctx;
  return llvm_emit::Emitter(ctx, req).folds();
}

namespace llvm_emit {

FoldedInitialisations Emitter::folds() {
  pack_of_.assign(def_.tensors.size(), -1);
  fold_initialisations();
  return folds_;
}

std::unique_ptr<llvm::Module> Emitter::run() {
  module_->addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
  module_->addModuleFlag(llvm::Module::Warning, "Dwarf Version", 4);
  file_ = dib_.createFile(req_.c_file_name, ".");
  cu_ = dib_.createCompileUnit(llvm::dwarf::DW_LANG_C99, file_, "TC Studio", true, "", 0, "",
                               llvm::DICompileUnit::LineTablesOnly);
  ptr_ = llvm::PointerType::get(C, 0);
  i64_ = B.getInt64Ty();
  i32_ = B.getInt32Ty();
  pack_of_.assign(def_.tensors.size(), -1);
  auto* pf_type = llvm::FunctionType::get(B.getVoidTy(), {ptr_, ptr_, ptr_, i64_}, false);
  parallel_for_ = llvm::Function::Create(pf_type, llvm::Function::ExternalLinkage, "tcs_rt_parallel_for", *module_);

  // The body: every tensor a noalias argument, then the error word and the pool.
  Env body = make_impl("tcs_body", {});
  if (req_.folds) folds_ = *req_.folds;
  else fold_initialisations();
  for (size_t i = 0; i < nest_.root.children.size(); ++i)
    if (!folds_.skipped[i]) emit(nest_.root.children[i], body);
  B.CreateRetVoid();
  dib_.finalize();

  // cpu.streamStores: a second copy of the code, for outputs that start on a cache line
  // (codegen/LlvmStreamStores.h).
  std::vector<std::pair<unsigned, std::string>> outputs;
  for (size_t t = 0; t < def_.tensors.size(); ++t)
    if (def_.tensors[t].role == TensorRole::Output) outputs.emplace_back(unsigned(t), def_.tensors[t].name);
  llvm::Function* streaming = nest_.stream_outputs && !outputs.empty() ? copy_for_streaming(*module_, body.fn, impls_, outputs) : nullptr;

  // The entry point unpacks the buffer array and returns the error bits. With symbolic
  // sizes it first checks them (size_conditions) and runs nothing when one fails.
  auto* entry_type = llvm::FunctionType::get(i32_, {ptr_, ptr_, ptr_}, false);
  llvm::Function* entry = llvm::Function::Create(entry_type, llvm::Function::ExternalLinkage, kKernelSymbol, *module_);
  entry->addFnAttr(llvm::Attribute::NoUnwind);
  B.SetInsertPoint(llvm::BasicBlock::Create(C, "entry", entry));
  B.SetCurrentDebugLocation(llvm::DebugLoc());
  if (layout_.symbolic) {
    Env check;
    check.sizes = entry->getArg(2);
    llvm::Value* bad = B.getFalse();
    for (const SizeCondition& c : size_conditions(def_))
      bad = B.CreateOr(bad, B.CreateICmpSLT(sym(c.nonnegative, check), B.getInt64(0)));
    auto* refuse = llvm::BasicBlock::Create(C, "sizes.bad", entry);
    auto* run = llvm::BasicBlock::Create(C, "sizes.ok", entry);
    B.CreateCondBr(bad, refuse, run);
    B.SetInsertPoint(refuse);
    B.CreateRet(B.getInt32(kErrSizes));
    B.SetInsertPoint(run);
  }
  llvm::Value* err = B.CreateAlloca(i32_, nullptr, "err");
  B.CreateStore(B.getInt32(0), err);
  std::vector<llvm::Value*> args;
  for (size_t t = 0; t < def_.tensors.size(); ++t)
    args.push_back(B.CreateLoad(ptr_, B.CreateConstGEP1_64(ptr_, entry->getArg(0), t), def_.tensors[t].name));
  for (size_t p = 0; p < nest_.packs.size(); ++p) args.push_back(llvm::ConstantPointerNull::get(ptr_));
  args.push_back(err);
  args.push_back(entry->getArg(1));
  if (layout_.symbolic) args.push_back(entry->getArg(2));
  if (streaming) {
    llvm::Value* aligned = B.getTrue();
    for (const auto& [t, name] : outputs)
      aligned = B.CreateAnd(aligned, B.CreateICmpEQ(B.CreateAnd(B.CreatePtrToInt(args[t], i64_), B.getInt64(kStreamedOutputAlignment - 1)), B.getInt64(0)));
    auto* stream = llvm::BasicBlock::Create(C, "outputs.aligned", entry);
    auto* plain = llvm::BasicBlock::Create(C, "outputs.unaligned", entry);
    auto* ran = llvm::BasicBlock::Create(C, "ran", entry);
    B.CreateCondBr(aligned, stream, plain);
    B.SetInsertPoint(stream);
    B.CreateCall(streaming, args);
    B.CreateBr(ran);
    B.SetInsertPoint(plain);
    B.CreateCall(body.fn, args);
    B.CreateBr(ran);
    B.SetInsertPoint(ran);
  } else {
    B.CreateCall(body.fn, args);
  }
  B.CreateRet(B.CreateLoad(i32_, err));
  return std::move(module_);
}

Emitter::Env Emitter::make_impl(const std::string& name, const std::vector<std::string>& extra,
                                const std::vector<std::string>& pointers) {
  size_t ns = slots();
  std::vector<llvm::Type*> params(ns + common_args(), ptr_);
  for (size_t i = 0; i < extra.size(); ++i) params.push_back(i64_);
  for (size_t i = 0; i < pointers.size(); ++i) params.push_back(ptr_);
  auto* type = llvm::FunctionType::get(B.getVoidTy(), params, false);
  Env env;
  env.fn = llvm::Function::Create(type, llvm::Function::InternalLinkage, name, *module_);
  impls_.push_back(env.fn);
  env.fn->addFnAttr(llvm::Attribute::NoUnwind);
  env.fn->addFnAttr(llvm::Attribute::NoInline);
  for (size_t t = 0; t < ns; ++t) {
    env.fn->addParamAttr(unsigned(t), llvm::Attribute::NoAlias);
    env.fn->getArg(unsigned(t))->setName(slot_name(int(t)));
    env.tensors.push_back(env.fn->getArg(unsigned(t)));
  }
  env.err = env.fn->getArg(unsigned(ns));
  env.err->setName("err");
  env.pool = env.fn->getArg(unsigned(ns + 1));
  env.pool->setName("pool");
  if (layout_.symbolic) {
    env.sizes = env.fn->getArg(unsigned(ns + 2));
    env.sizes->setName("sizes");
    env.fn->addParamAttr(unsigned(ns + 2), llvm::Attribute::NoAlias);
    env.fn->addParamAttr(unsigned(ns + 2), llvm::Attribute::ReadOnly);
  }
  for (size_t i = 0; i < extra.size(); ++i) env.fn->getArg(unsigned(ns + common_args() + i))->setName(extra[i]);
  for (size_t i = 0; i < pointers.size(); ++i)
    env.fn->getArg(unsigned(ns + common_args() + extra.size() + i))->setName(pointers[i]);
  env.iters.assign(nest_.iter_names.size(), nullptr);
  env.iter_last.assign(nest_.iter_names.size(), nullptr);
  auto* sub_type = dib_.createSubroutineType(dib_.getOrCreateTypeArray({}));
  env.sp = dib_.createFunction(file_, name, name, file_, 1, sub_type, 1, llvm::DINode::FlagZero,
                               llvm::DISubprogram::SPFlagDefinition);
  env.fn->setSubprogram(env.sp);
  B.SetInsertPoint(llvm::BasicBlock::Create(C, "entry", env.fn));
  B.SetCurrentDebugLocation(llvm::DILocation::get(C, 1, 0, env.sp));
  return env;
}

void Emitter::locate(const LoopNode& n, const Env& env) {
  int line = 1;
  if (req_.node_lines)
    if (auto it = req_.node_lines->find(&n); it != req_.node_lines->end()) line = it->second;
  B.SetCurrentDebugLocation(llvm::DILocation::get(C, unsigned(line), 0, env.sp));
}

void Emitter::emit_children(const std::vector<LoopNode>& nodes, Env& env) {
  for (const LoopNode& n : nodes) emit(n, env);
}

void Emitter::emit(const LoopNode& n, Env& env) {
  switch (n.kind) {
    case LoopNode::Kind::Block: emit_children(n.children, env); return;
    case LoopNode::Kind::For:
      if (n.annot.parallel && !env.in_parallel) emit_parallel_for(n, env);
      else if (n.annot.accumulate_in_registers && emit_register_tile(n, env)) return;
      else if (!n.annot.reduction || !emit_vector_reduction(n, env)) emit_for(n, env);
      return;
    case LoopNode::Kind::If: emit_if(n, env); return;
    case LoopNode::Kind::Pack: emit_pack(n, env); return;
    case LoopNode::Kind::Call: emit_call(n, env); return;
  }
}

llvm::Value* Emitter::lx(const LExpr& e, Env& env) {
  using Op = LExpr::Op;
  auto a = [&](size_t i) { return as_int(lx(e.args[i], env)); };
  switch (e.op) {
    case Op::Int: return B.getInt64(uint64_t(e.value));
    case Op::Iter: return env.iters[size_t(e.value)];
    case Op::Param: return sym(layout_.sizes[size_t(e.value)], env);
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

llvm::MDNode* Emitter::loop_metadata(const LoopNode& n, LoopPart part) {
  std::vector<llvm::Metadata*> ops = {nullptr};
  auto flag = [&](const char* name) { ops.push_back(llvm::MDNode::get(C, {llvm::MDString::get(C, name)})); };
  auto value = [&](const char* name, llvm::Metadata* v) {
    ops.push_back(llvm::MDNode::get(C, {llvm::MDString::get(C, name), v}));
  };
  flag("llvm.loop.mustprogress");
  if (n.annot.vector_width > 1) {
    value("llvm.loop.vectorize.enable", llvm::ConstantAsMetadata::get(B.getTrue()));
    value("llvm.loop.vectorize.width", llvm::ConstantAsMetadata::get(B.getInt32(uint32_t(n.annot.vector_width))));
    // The rest of a row (40 of softmax's 1000 at 16 lanes) as masked vectors: LLVM's own
    // remainder would be scalar, one exp at a time.
    if (part == LoopPart::Rest) value("llvm.loop.vectorize.predicate.enable", llvm::ConstantAsMetadata::get(B.getTrue()));
    // Up to four partial results in flight, so the adds' latency does not serialise the
    // loop. A loop not split (a stride, a symbolic or short trip count) takes fewer where
    // more would leave a longer scalar remainder (a row of 40 at 8 lanes: 1 x 8 leaves
    // none, 4 x 8 leaves 8); LLVM takes only powers of two. The rest gets one.
    if (n.annot.reduction && part != LoopPart::Rest) {
      int count = 4;
      if (auto span = constant_span(n.init, n.upper); span && part == LoopPart::Whole) {
        int64_t trips = *span / n.stride + 1, w = n.annot.vector_width;
        while (count > 1 && trips % (count * w) >= w) count /= 2;
      }
      value("llvm.loop.interleave.count", llvm::ConstantAsMetadata::get(B.getInt32(uint32_t(count))));
    }
  }
  // Full unrolling only where the trip count is a constant (a partial register tile is not).
  // A rest is not unrolled: LLVM would unroll it into scalars before it vectorises it.
  if (part == LoopPart::Rest) {
    flag("llvm.loop.unroll.disable");
  } else {
    const bool full = n.annot.unroll < 0 && n.init.is_int() && n.upper.is_int();
    if (n.annot.vector_width > 1 && (full || n.annot.unroll <= 1)) {
      // Not unrolled before it is vectorised: LLVM unrolls a short loop of a known trip
      // count in full first, and then vectorises the loop around it, across rows, with a
      // gather and a scatter per vector (rows of 28: 8 GB/s on a residual add; attention's
      // scaling of its 32 x 32 scores, 1.29x slower at B=8). The loop it makes is unrolled
      // in full where that was asked, else as LLVM sees fit.
      flag("llvm.loop.unroll.disable");
      std::vector<llvm::Metadata*> followup = {
          llvm::MDString::get(C, "llvm.loop.vectorize.followup_all"),
          llvm::MDNode::get(C, {llvm::MDString::get(C, "llvm.loop.isvectorized"), llvm::ConstantAsMetadata::get(B.getInt32(1))})};
      if (full) followup.push_back(llvm::MDNode::get(C, {llvm::MDString::get(C, "llvm.loop.unroll.full")}));
      ops.push_back(llvm::MDNode::get(C, followup));
    } else if (full) {
      flag("llvm.loop.unroll.full");
    } else if (n.annot.unroll > 1) {
      value("llvm.loop.unroll.count", llvm::ConstantAsMetadata::get(B.getInt32(uint32_t(n.annot.unroll))));
    }
  }
  llvm::MDNode* md = llvm::MDNode::getDistinct(C, ops);
  md->replaceOperandWith(0, md);
  return md;
}

void Emitter::emit_loop(const LoopNode& n, Env& env, llvm::Value* lo, llvm::Value* hi,
               const std::function<void(llvm::Value*)>& body, LoopPart part) {
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
  br->setMetadata(llvm::LLVMContext::MD_loop, loop_metadata(n, part));
  iv->addIncoming(next, B.GetInsertBlock());
  B.SetInsertPoint(exit);
}

void Emitter::emit_for(const LoopNode& n, Env& env) {
  locate(n, env);
  llvm::Value* lo = as_int(lx(n.init, env));
  llvm::Value* hi = as_int(lx(n.upper, env));
  auto body = [&](llvm::Value* iv) {
    env.iters[size_t(n.iter)] = iv;
    env.iter_last[size_t(n.iter)] = hi;
    stream_ahead(n, env);
    emit_children(n.children, env);
    env.iters[size_t(n.iter)] = nullptr;
    env.iter_last[size_t(n.iter)] = nullptr;
  };
  // A stride-1 vector loop of a known trip count longer than a group of four vectors that
  // groups do not fill: the groups first, so that LLVM's interleaving (up to four vectors
  // an iteration on x86) leaves no scalar remainder, then the rest as masked vectors.
  // softmax 128x1000 at 16 lanes ran 7 % faster so (8 exps a row had been scalar); a sum
  // over 1008 had left 48 scalar adds in a chain. LLVM takes only power-of-two widths.
  const int w = n.annot.vector_width;
  const int64_t group = int64_t(w) * 4;
  std::optional<int64_t> span = constant_span(n.init, n.upper);
  if (w > 1 && (w & (w - 1)) == 0 && n.stride == 1 && span) {
    const int64_t trips = *span + 1;
    if (trips % group != 0 && trips > group) {
      llvm::Value* split = B.CreateNSWAdd(lo, B.getInt64(uint64_t(trips / group * group)));
      emit_loop(n, env, lo, B.CreateSub(split, B.getInt64(1)), body, LoopPart::Groups);
      emit_loop(n, env, split, hi, body, LoopPart::Rest);
      return;
    }
    // A short loop that vectors do not fill (rows of 14 or 28 at 16 lanes) is masked
    // vectors throughout: LLVM would leave all 14 scalar, or 12 of 28.
    if (trips % w != 0) {
      emit_loop(n, env, lo, hi, body, LoopPart::Rest);
      return;
    }
  }
  emit_loop(n, env, lo, hi, body);
}

void Emitter::emit_parallel_for(const LoopNode& n, Env& env) {
  locate(n, env);
  llvm::Value* lo = as_int(lx(n.init, env));
  llvm::Value* hi = as_int(lx(n.upper, env));
  llvm::Value* count = B.CreateSelect(
      B.CreateICmpSLE(lo, hi),
      B.CreateAdd(B.CreateSDiv(B.CreateSub(hi, lo), B.getInt64(uint64_t(n.stride))), B.getInt64(1)), B.getInt64(0));

  size_t nt = slots(), ni = nest_.iter_names.size(), na = nt + common_args();
  std::vector<llvm::Type*> fields(na, ptr_);
  for (size_t i = 0; i < ni + 1; ++i) fields.push_back(i64_);
  // Partial totals: one accumulator per iteration, in the caller's frame.
  std::optional<PartialTotals> totals;
  if (n.annot.partial_totals) totals = partial_totals_of(n, env);
  if (totals) fields.push_back(ptr_);
  auto* ctx_type = llvm::StructType::get(C, fields);
  llvm::IRBuilder<> entry_builder(&env.fn->getEntryBlock(), env.fn->getEntryBlock().begin());
  llvm::Value* ctx = entry_builder.CreateAlloca(ctx_type, nullptr, loop_name(n) + ".ctx");
  for (size_t t = 0; t < nt; ++t) B.CreateStore(env.tensors[t], B.CreateStructGEP(ctx_type, ctx, unsigned(t)));
  B.CreateStore(env.err, B.CreateStructGEP(ctx_type, ctx, unsigned(nt)));
  B.CreateStore(env.pool, B.CreateStructGEP(ctx_type, ctx, unsigned(nt + 1)));
  if (layout_.symbolic) B.CreateStore(env.sizes, B.CreateStructGEP(ctx_type, ctx, unsigned(nt + 2)));
  for (size_t i = 0; i < ni; ++i)
    B.CreateStore(env.iters[i] ? env.iters[i] : B.getInt64(0), B.CreateStructGEP(ctx_type, ctx, unsigned(na + i)));
  B.CreateStore(lo, B.CreateStructGEP(ctx_type, ctx, unsigned(na + ni)));
  if (totals) B.CreateStore(totals->parts, B.CreateStructGEP(ctx_type, ctx, unsigned(na + ni + 1)));

  // The implementation: noalias tensors, iterators by value, [begin, end).
  llvm::IRBuilderBase::InsertPoint saved = B.saveIP();
  std::vector<std::string> extra;
  for (size_t i = 0; i < ni; ++i) extra.push_back(nest_.iter_names[i] + ".outer");
  extra.push_back("lo");
  extra.push_back("begin");
  extra.push_back("end");
  std::string name = "tcs_parallel_" + loop_name(n);
  Env inner = make_impl(name + "_body", extra, totals ? std::vector<std::string>{"parts"} : std::vector<std::string>{});
  inner.in_parallel = true;
  for (size_t i = 0; i < ni; ++i)
    if (env.iters[i]) inner.iters[i] = inner.fn->getArg(unsigned(na + i));
  llvm::Value* first = inner.fn->getArg(unsigned(na + ni));
  llvm::Value* begin = inner.fn->getArg(unsigned(na + ni + 1));
  llvm::Value* end = inner.fn->getArg(unsigned(na + ni + 2));
  locate(n, inner);
  LoopNode chunk = n;  // the same loop over the chunk's iterations
  chunk.stride = 1;
  std::vector<FetchAhead> outer_ahead = std::exchange(ahead_, {});  // their values are the caller's
  // A part's accumulators: the statement's output, as far as the loops below can tell.
  llvm::Value* own = nullptr;
  if (totals) {
    llvm::IRBuilder<> inner_entry(&inner.fn->getEntryBlock(), inner.fn->getEntryBlock().begin());
    own = inner_entry.CreateAlloca(totals->type, B.getInt64(uint64_t(totals->numel)), slot_name(totals->slot) + ".part");
    inner.tensors[size_t(totals->slot)] = own;
  }
  emit_loop(chunk, inner, begin, B.CreateSub(end, B.getInt64(1)), [&](llvm::Value* j) {
    inner.iters[size_t(n.iter)] = B.CreateNSWAdd(first, B.CreateNSWMul(j, B.getInt64(uint64_t(n.stride))), nest_.iter_names[size_t(n.iter)]);
    for (int64_t e = 0; totals && e < totals->numel; ++e) B.CreateStore(totals->start, B.CreateConstInBoundsGEP1_64(totals->type, own, uint64_t(e)));
    stream_ahead(n, inner);
    emit_children(n.children, inner);
    if (totals) {
      llvm::Value* parts = inner.fn->getArg(unsigned(na + ni + 3));
      llvm::Value* mine = B.CreateInBoundsGEP(totals->type, parts, B.CreateNSWMul(j, B.getInt64(uint64_t(totals->numel))));
      for (int64_t e = 0; e < totals->numel; ++e)
        B.CreateStore(B.CreateLoad(totals->type, B.CreateConstInBoundsGEP1_64(totals->type, own, uint64_t(e))),
                      B.CreateConstInBoundsGEP1_64(totals->type, mine, uint64_t(e)));
    }
  });
  ahead_ = std::move(outer_ahead);
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
  for (size_t f = 0; f < na + ni + 1; ++f)
    args.push_back(B.CreateLoad(fields[f], B.CreateStructGEP(ctx_type, tctx, unsigned(f))));
  args.push_back(tramp->getArg(1));
  args.push_back(tramp->getArg(2));
  if (totals) args.push_back(B.CreateLoad(ptr_, B.CreateStructGEP(ctx_type, tctx, unsigned(na + ni + 1))));
  B.CreateCall(inner.fn, args);
  B.CreateRetVoid();

  B.restoreIP(saved);
  locate(n, env);
  B.CreateCall(parallel_for_, {env.pool, tramp, ctx, count});
  if (totals) combine_partial_totals(n, *totals, count, env);
}

// The statement the parts run, where its output lives, and the parts' accumulators.
Emitter::PartialTotals Emitter::partial_totals_of(const LoopNode& n, Env& env) {
  std::vector<int> calls = calls_below(n);
  PartialTotals t;
  t.sem = stmt_semantics(def_, nest_.stmts[size_t(calls.at(0))]);
  t.slot = read_slot(t.sem.lhs_tensor);
  t.type = mem_type(t.sem.type);
  t.start = scalar_type_is_float(t.sem.type) ? llvm::ConstantFP::get(t.type, copy_start_f(t.sem))
                                                : llvm::ConstantInt::get(t.type, uint64_t(t.sem.identity_i));
  t.numel = n.annot.partial_totals;
  int64_t parts = n.upper.value + 1;  // the parts loop runs from 0 to a number (loopnest/SplitTotals.cpp)
  llvm::IRBuilder<> entry_builder(&env.fn->getEntryBlock(), env.fn->getEntryBlock().begin());
  t.parts = entry_builder.CreateAlloca(t.type, B.getInt64(uint64_t(parts * t.numel)), slot_name(t.slot) + ".parts");
  return t;
}

// After the parts ran: each part's copy into the output, in part order, element by
// element as the statement combines a value.
void Emitter::combine_partial_totals(const LoopNode& n, const PartialTotals& t, llvm::Value* count, Env& env) {
  LoopNode part = n;
  part.annot = LoopAnnotation{};
  emit_loop(part, env, B.getInt64(0), B.CreateSub(count, B.getInt64(1)), [&](llvm::Value* k) {
    llvm::Value* copy = B.CreateInBoundsGEP(t.type, t.parts, B.CreateNSWMul(k, B.getInt64(uint64_t(t.numel))));
    for (int64_t e = 0; e < t.numel; ++e) {
      llvm::Value* v = B.CreateLoad(t.type, B.CreateConstInBoundsGEP1_64(t.type, copy, uint64_t(e)));
      llvm::Value* off = B.getInt64(uint64_t(e));
      store(t.slot, off, combine(t.sem, load(t.slot, off, env), v), env);
    }
  });
}

void Emitter::emit_if(const LoopNode& n, Env& env) {
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

llvm::Type* Emitter::reg_type(ScalarType t) {
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

llvm::Value* Emitter::element_ptr(int slot, llvm::Value* offset, Env& env) {
  return B.CreateInBoundsGEP(mem_type(def_.tensors[size_t(slot_tensor(slot))].type), env.tensors[size_t(slot)], offset);
}

llvm::Value* Emitter::load(int slot, llvm::Value* offset, Env& env) {
  ScalarType ty = def_.tensors[size_t(slot_tensor(slot))].type;
  llvm::Value* v = B.CreateLoad(mem_type(ty), element_ptr(slot, offset, env), slot_name(slot));
  return ty == ScalarType::Bool ? B.CreateICmpNE(v, B.getInt8(0)) : v;
}

void Emitter::store(int slot, llvm::Value* offset, llvm::Value* v, Env& env) {
  if (def_.tensors[size_t(slot_tensor(slot))].type == ScalarType::Bool) v = B.CreateZExt(v, B.getInt8Ty());
  B.CreateStore(v, element_ptr(slot, offset, env));
}

std::string Emitter::slot_name(int slot) const {
  int t = slot_tensor(slot);
  if (size_t(slot) < def_.tensors.size()) return def_.tensors[size_t(t)].name;
  return def_.tensors[size_t(t)].name + "_pack" + std::to_string(size_t(slot) - def_.tensors.size());
}

int Emitter::slot_tensor(int slot) const {
  if (size_t(slot) < def_.tensors.size()) return slot;
  return nest_.packs[size_t(slot) - def_.tensors.size()].tensor;
}

int Emitter::read_slot(int t) const {
  int site = pack_of_.empty() ? -1 : pack_of_[size_t(t)];
  return site < 0 ? t : int(def_.tensors.size()) + site;
}

std::vector<std::optional<int64_t>> Emitter::read_strides(int t) const {
  int site = pack_of_.empty() ? -1 : pack_of_[size_t(t)];
  std::vector<std::optional<int64_t>> r;
  if (site < 0)
    for (size_t d = 0; d < layout_.tensors[size_t(t)].stride.size(); ++d) r.push_back(layout_.constant_stride(t, d));
  else
    for (int64_t s : nest_.packs[size_t(site)].strides()) r.push_back(s);
  return r;
}

llvm::Value* Emitter::sym(const SymExpr& e, Env& env) {
  llvm::Value* v = B.getInt64(uint64_t(e.constant_term()));
  for (const SymExpr::Term& t : e.terms()) {
    const SymAtom& a = *t.atom;
    llvm::Value* x = nullptr;
    switch (a.kind) {
      case SymAtom::Param: {
        int p = def_.find_size_param(a.name);
        x = B.CreateLoad(i64_, B.CreateConstInBoundsGEP1_64(i64_, env.sizes, uint64_t(p)), a.name);
        break;
      }
      case SymAtom::Min: x = B.CreateBinaryIntrinsic(llvm::Intrinsic::smin, sym(a.operands[0], env), sym(a.operands[1], env)); break;
      case SymAtom::Max: x = B.CreateBinaryIntrinsic(llvm::Intrinsic::smax, sym(a.operands[0], env), sym(a.operands[1], env)); break;
      case SymAtom::FloorDiv: {
        llvm::Value* n = sym(a.operands[0], env);
        llvm::Value* q = B.CreateSDiv(n, B.getInt64(uint64_t(a.divisor)));
        llvm::Value* r = B.CreateSRem(n, B.getInt64(uint64_t(a.divisor)));
        x = B.CreateSub(q, B.CreateZExt(B.CreateICmpSLT(r, B.getInt64(0)), i64_));  // divisor > 0
        break;
      }
      case SymAtom::Product: x = B.CreateMul(sym(a.operands[0], env), sym(a.operands[1], env)); break;
    }
    v = B.CreateAdd(v, B.CreateMul(x, B.getInt64(uint64_t(t.coef))));
  }
  return v;
}

llvm::Value* Emitter::offset(int t, const std::vector<llvm::Value*>& coords, Env& env) {
  const TensorLayout& l = layout_.tensors[size_t(t)];
  llvm::Value* off = B.getInt64(0);
  for (size_t d = 0; d < coords.size(); ++d) {
    llvm::Value* c = coords[d];
    if (!(l.lo[d] == SymExpr(0))) c = B.CreateNSWSub(c, sym(l.lo[d], env));
    off = B.CreateNSWAdd(off, B.CreateNSWMul(c, sym(l.stride[d], env)));
  }
  return off;
}

}  // namespace llvm_emit
}  // namespace tcs
