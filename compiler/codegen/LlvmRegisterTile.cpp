// The register-tile micro-kernel.
//
// A reduction loop around fully unrolled register loops: the accumulators of the whole
// tile are loaded once before the loop, carried in SSA values (registers) through it and
// stored once after it; the vector loop's lanes become explicit vectors. This is the
// micro-kernel of a GEMM, derived from the loop nest rather than written by hand. When
// the nest does not have that shape, the caller emits ordinary loops.
#include "codegen/LlvmEmitterImpl.h"

#include "loopnest/Affine.h"
#include "loopnest/FullTiles.h"

namespace tcs::llvm_emit {

std::optional<int64_t> Emitter::read_stride(const Expr& e, const std::vector<std::optional<int64_t>>& darg) {
  std::vector<std::optional<int64_t>> strides = read_strides(e.ref_id);
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
      if (coef * *darg[size_t(idx)] == 0) continue;
      if (!strides[d]) return std::nullopt;  // moves by a stride only known at run time
      total += coef * *darg[size_t(idx)] * *strides[d];
    }
  }
  return total;
}

bool Emitter::vectorisable(const Expr& e, ScalarType t, const std::vector<std::optional<int64_t>>& dv) {
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

llvm::Value* Emitter::vexpr(const Expr& e, Env& env, int lanes, const std::vector<std::optional<int64_t>>& dv) {
  llvm::Type* st = reg_type(e.type);
  auto splat = [&](llvm::Value* v) { return lanes > 1 ? B.CreateVectorSplat(unsigned(lanes), v) : v; };
  switch (e.kind) {
    case ExprKind::FloatLiteral: return splat(llvm::ConstantFP::get(st, double(float(e.float_value))));
    case ExprKind::Name: return splat(load(read_slot(e.ref_id), B.getInt64(0), env));
    case ExprKind::Access: {
      llvm::Value* off = read_offset(e, env);
      int slot = read_slot(e.ref_id);
      if (lanes == 1 || *read_stride(e, dv) == 0) return splat(load(slot, off, env));
      auto* vt = llvm::FixedVectorType::get(st, unsigned(lanes));
      llvm::Align align(scalar_type_bytes(e.type));
      if (lane_mask_)  // lanes past the edge read nothing (zero), so no fault and no NaN from them
        return B.CreateMaskedLoad(vt, element_ptr(slot, off, env), align, lane_mask_, llvm::Constant::getNullValue(vt), e.name);
      return B.CreateAlignedLoad(vt, element_ptr(slot, off, env), align, e.name);
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

bool Emitter::emit_register_tile(const LoopNode& f, Env& env) {
  // The shape: f -> more reduction loops that keep accumulators in registers (each the
  // only child of the one before) -> register loops (constant trips) -> one statement
  // call. The accumulators are carried through every reduction loop, so a convolution's
  // c, kh and kw loops load and store them once, not once per (c, kh).
  // A register loop of a partial tile (from init to min(init + span, edge)) still runs
  // `span + 1` points: those past the edge are clamped onto its last iteration, so they
  // redo that iteration's work on the same accumulator and store the same value. This
  // keeps edge tiles in registers too, as long as no other register loop's bounds move
  // with the clamped one. The vector loop is not clamped but masked: each vector's lanes
  // past the edge neither load nor store.
  std::vector<const LoopNode*> reds = accumulating_loops(f);
  std::vector<const LoopNode*> chain;
  std::vector<int64_t> trips;
  std::vector<bool> clamped;
  const LoopNode* cur = reds.back();
  while (cur->children.size() == 1 && cur->children[0].kind == LoopNode::Kind::For && cur->children[0].annot.register_tile) {
    cur = &cur->children[0];
    auto span = constant_span(cur->init, cur->upper);
    bool clamp = !span;
    if (clamp)
      if (auto bound = split_tile_bound(cur->init, cur->upper)) span = bound->span;
    if (!span || *span < 0 || (clamp && cur->stride != 1)) return false;
    chain.push_back(cur);
    trips.push_back(*span / cur->stride + 1);
    clamped.push_back(clamp);
  }
  if (chain.empty() || cur->children.size() != 1 || cur->children[0].kind != LoopNode::Kind::Call) return false;
  for (size_t i = 0; i < chain.size(); ++i) {
    if (!clamped[i]) continue;
    if (chain[i]->annot.vector_width > 1 && i + 1 == chain.size() && trips[i] % chain[i]->annot.vector_width) return false;
    for (size_t j = i + 1; j < chain.size(); ++j)
      for (const LExpr* e : {&chain[j]->init, &chain[j]->upper})
        if (iter_coefficient(*e, chain[i]->iter) != std::optional<int64_t>(0)) return false;
  }
  for (const LoopNode* l : chain)  // the register loops' first values are computed outside the reductions
    for (const LExpr* e : {&l->init, &l->upper})
      for (const LoopNode* r : reds)
        if (iter_coefficient(*e, r->iter) != std::optional<int64_t>(0)) return false;
  const LoopNode& call = cur->children[0];
  const PolyStmt& ps = nest_.stmts[size_t(call.stmt)];
  StmtSemantics sem = stmt_semantics(def_, ps);
  if (!sem.combines || sem.op != ast::ReduceOp::Sum || !scalar_type_is_float(sem.type)) return false;
  stmt_ = &def_.stmts[size_t(ps.source_stmt)];
  const Expr& rhs = *stmt_->ast->rhs;

  // Derivatives of the statement's index values along the reduction and the lanes.
  const LoopNode* vloop = chain.back()->annot.vector_width > 1 ? chain.back() : nullptr;
  std::vector<std::optional<int64_t>> dv;
  for (const LExpr& a : call.args) dv.push_back(vloop ? iter_coefficient(a, vloop->iter) : std::optional<int64_t>(0));
  // The vector loop's lanes: full vectors, then for the rest of its constant trip one
  // vector of the next power of two, masked when the rest is not one: 26 columns at
  // width 8 are 8 + 8 + 8 + 2 lanes, at width 16 one full vector and 10 of 16 lanes.
  int lanes = vloop && vloop->stride == 1 ? vloop->annot.vector_width : 1;
  for (const LoopNode* r : reds)  // the accumulators must not move with a reduction loop
    for (int d = 0; d < stmt_->lhs_rank; ++d)
      if (iter_coefficient(call.args[size_t(d)], r->iter) != std::optional<int64_t>(0)) return false;
  int64_t lhs_dv = 0;
  for (int d = 0; d < stmt_->lhs_rank; ++d) {
    if (!dv[size_t(d)]) return false;
    if (*dv[size_t(d)] == 0) continue;
    auto stride = read_strides(sem.lhs_tensor)[size_t(d)];  // a local temporary's: its buffer's
    if (!stride) return false;  // accumulators a run-time stride apart: ordinary loops
    lhs_dv += *dv[size_t(d)] * *stride;
  }
  if (lanes > 1 && (lhs_dv != 1 || !vectorisable(rhs, sem.type, dv))) lanes = 1;
  if (lanes == 1 && !vectorisable(rhs, sem.type, std::vector<std::optional<int64_t>>(dv.size(), 0))) return false;

  // Every point of the register tile, as offsets from the loops' first values, and the
  // lanes it covers along the vector loop.
  struct Point {
    std::vector<int64_t> at;
    int lanes = 1;   // the vector's width ...
    int active = 1;  // ... and how many of its lanes run (fewer at the end of a constant trip)
  };
  std::vector<Point> points = {{}};
  for (size_t c = 0; c < chain.size(); ++c) {
    const LoopNode* l = chain[c];
    std::vector<Point> next;
    for (const Point& p : points)
      for (int64_t v = 0; v < trips[c];) {
        // A rest that is not a power of two is one masked vector: 14 columns are one
        // 16-lane operation with two lanes off, not 8 + 4 + 2 lanes in three.
        int64_t w = l == vloop ? std::min<int64_t>(lanes, trips[c] - v) : 1, width = 1;
        while (width < w) width *= 2;
        next.push_back(p);
        next.back().at.push_back(v * l->stride);
        if (l == vloop) next.back().lanes = int(width), next.back().active = int(w);
        v += w;
      }
    points = std::move(next);
  }
  if (points.size() > 64) return false;  // more accumulators than registers: not a register tile
  std::vector<llvm::Value*> first(chain.size()), last(chain.size());
  bool masked = vloop && lanes > 1 && clamped.back();
  std::vector<uint64_t> lane_numbers(size_t(std::max(lanes, 1)));
  for (size_t i = 0; i < lane_numbers.size(); ++i) lane_numbers[i] = i;
  auto at_point = [&](const Point& p) {
    lane_mask_ = nullptr;
    if (p.active < p.lanes) {
      std::vector<llvm::Constant*> on;
      for (int j = 0; j < p.lanes; ++j) on.push_back(B.getInt1(j < p.active));
      lane_mask_ = llvm::ConstantVector::get(on);
    }
    for (size_t i = 0; i < chain.size(); ++i) {
      llvm::Value* v = B.CreateNSWAdd(first[i], B.getInt64(uint64_t(p.at[i])));
      if (masked && chain[i] == vloop) {  // lane j runs iff v + j <= last
        llvm::Value* lane_at = B.CreateAdd(B.CreateVectorSplat(unsigned(lanes), v), llvm::ConstantDataVector::get(C, lane_numbers));
        lane_mask_ = B.CreateICmpSLE(lane_at, B.CreateVectorSplat(unsigned(lanes), last[i]));
      }
      if (clamped[i]) v = B.CreateBinaryIntrinsic(llvm::Intrinsic::smin, v, last[i]);
      env.iters[size_t(chain[i]->iter)] = v;
    }
    env.stmt_args.clear();
    for (const LExpr& a : call.args) env.stmt_args.push_back(as_int(lx(a, env)));
    std::vector<llvm::Value*> lhs(env.stmt_args.begin(), env.stmt_args.begin() + stmt_->lhs_rank);
    return read_offset_of(sem.lhs_tensor, lhs, env);
  };
  llvm::Type* st = reg_type(sem.type);
  auto acc_type = [&](const Point& p) -> llvm::Type* {
    return p.lanes > 1 ? llvm::FixedVectorType::get(st, unsigned(p.lanes)) : st;
  };
  llvm::Align align(scalar_type_bytes(sem.type));

  // The register loops' first values do not depend on the reduction loops: computed once,
  // outside them, where the accumulators are loaded.
  for (const LoopNode* r : reds) env.iters[size_t(r->iter)] = B.getInt64(0);
  locate(f, env);
  for (size_t i = 0; i < chain.size(); ++i) {
    first[i] = as_int(lx(chain[i]->init, env));
    if (clamped[i]) last[i] = as_int(lx(chain[i]->upper, env));
    env.iters[size_t(chain[i]->iter)] = first[i];
  }
  std::vector<llvm::Value*> addresses, masks;
  locate(call, env);
  for (const auto& p : points) {
    addresses.push_back(element_ptr(read_slot(sem.lhs_tensor), at_point(p), env));
    masks.push_back(lane_mask_);
  }
  for (const LoopNode* r : reds) env.iters[size_t(r->iter)] = nullptr;
  std::vector<llvm::Value*> accs;
  for (size_t i = 0; i < points.size(); ++i)
    if (masks[i])
      accs.push_back(B.CreateMaskedLoad(acc_type(points[i]), addresses[i], align, masks[i],
                                        llvm::Constant::getNullValue(acc_type(points[i])), "acc"));
    else
      accs.push_back(B.CreateAlignedLoad(acc_type(points[i]), addresses[i], align, "acc"));
  accs = carry_accumulators(reds, 0, accs, env, [&](const std::vector<llvm::Value*>& in) {
    llvm::FastMathFlags fmf;
    fmf.setAllowContract();
    fmf.setAllowReassoc();
    locate(call, env);
    std::vector<llvm::Value*> out;
    for (size_t i = 0; i < points.size(); ++i) {
      at_point(points[i]);
      llvm::Value* v = vexpr(rhs, env, points[i].lanes, dv);
      llvm::IRBuilderBase::FastMathFlagGuard guard(B);
      B.setFastMathFlags(fmf);
      out.push_back(B.CreateFAdd(in[i], v, "acc"));
    }
    return out;
  });
  locate(call, env);
  for (size_t i = 0; i < points.size(); ++i)
    if (masks[i]) B.CreateMaskedStore(accs[i], addresses[i], align, masks[i]);
    else B.CreateAlignedStore(accs[i], addresses[i], align);
  lane_mask_ = nullptr;
  for (const LoopNode* l : chain) env.iters[size_t(l->iter)] = nullptr;
  return true;
}

std::vector<llvm::Value*> Emitter::carry_accumulators(const std::vector<const LoopNode*>& reds, size_t level,
                                                      const std::vector<llvm::Value*>& in, Env& env,
                                                      const AccumulatorStep& step) {
  // One reduction loop whose PHIs carry the accumulators: `in` on entry, the body's
  // results around the back edge, and on exit whichever reached it.
  const LoopNode& r = *reds[level];
  locate(r, env);
  llvm::Value* lo = as_int(lx(r.init, env));
  llvm::Value* hi = as_int(lx(r.upper, env));
  std::string name = loop_name(r);
  llvm::BasicBlock* pre = B.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(C, name + ".body", env.fn);
  auto* exit = llvm::BasicBlock::Create(C, name + ".exit", env.fn);
  B.CreateCondBr(B.CreateICmpSLE(lo, hi), header, exit);
  B.SetInsertPoint(header);
  llvm::PHINode* iv = B.CreatePHI(i64_, 2, name + ".iv");
  iv->addIncoming(lo, pre);
  std::vector<llvm::PHINode*> acc;
  std::vector<llvm::Value*> acc_values;
  for (llvm::Value* v : in) {
    acc.push_back(B.CreatePHI(v->getType(), 2, "acc"));
    acc.back()->addIncoming(v, pre);
    acc_values.push_back(acc.back());
  }
  env.iters[size_t(r.iter)] = iv;
  std::vector<llvm::Value*> updated =
      level + 1 < reds.size() ? carry_accumulators(reds, level + 1, acc_values, env, step) : step(acc_values);
  locate(r, env);
  llvm::Value* next = B.CreateNSWAdd(iv, B.getInt64(uint64_t(r.stride)), name + ".next");
  llvm::BranchInst* br = B.CreateCondBr(B.CreateICmpSLE(next, hi), header, exit);
  LoopNode plain = r;
  plain.annot = LoopAnnotation{};
  br->setMetadata(llvm::LLVMContext::MD_loop, loop_metadata(plain));
  llvm::BasicBlock* latch = B.GetInsertBlock();
  iv->addIncoming(next, latch);
  for (size_t i = 0; i < acc.size(); ++i) acc[i]->addIncoming(updated[i], latch);
  B.SetInsertPoint(exit);
  env.iters[size_t(r.iter)] = nullptr;
  std::vector<llvm::Value*> out;
  for (size_t i = 0; i < in.size(); ++i) {
    llvm::PHINode* phi = B.CreatePHI(in[i]->getType(), 2, "acc");
    phi->addIncoming(in[i], pre);
    phi->addIncoming(updated[i], latch);
    out.push_back(phi);
  }
  return out;
}

}  // namespace tcs::llvm_emit
