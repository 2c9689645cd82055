// The register-tile micro-kernel.
//
// A reduction loop around fully unrolled register loops: the accumulators of the whole
// tile are loaded once before the loop, carried in SSA values (registers) through it and
// stored once after it; the vector loop's lanes become explicit vectors. This is the
// micro-kernel of a GEMM, derived from the loop nest rather than written by hand. When
// the nest does not have that shape, the caller emits ordinary loops.
#include "codegen/LlvmEmitterImpl.h"

#include <llvm/IR/InlineAsm.h>

#include <algorithm>
#include <map>

#include "loopnest/Affine.h"
#include "loopnest/FullTiles.h"

namespace tcs::llvm_emit {

// Reads that move up to this many elements a lane are loaded whole and shuffled (vexpr).
constexpr int64_t kMaxShuffledStride = 4;

std::optional<int64_t> Emitter::read_stride(const Expr& e, const std::vector<std::optional<int64_t>>& darg) {
  std::vector<std::optional<int64_t>> strides = read_strides(e.ref_id);
  int64_t total = 0;
  for (size_t d = 0; d < e.args.size(); ++d) {
    const AccessConstraint* ac = nullptr;
    for (const AccessConstraint& c : stmt_->constraints)
      if (c.subscript == e.args[d].get()) ac = &c;
    if (!ac) return std::nullopt;
    if (!ac->affine || ac->data_dependent || ac->checked_when_run()) {  // one address for every lane, or none
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
      return s && *s >= 0 && *s <= kMaxShuffledStride;
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
      const int64_t stride = *read_stride(e, dv);
      if (lanes == 1 || stride == 0) return splat(load(slot, off, env));
      llvm::Align align(scalar_type_bytes(e.type));
      if (stride == 1) {
        auto* vt = llvm::FixedVectorType::get(st, unsigned(lanes));
        if (lane_mask_)  // lanes past the edge read nothing (zero), so no fault and no NaN from them
          return B.CreateMaskedLoad(vt, element_ptr(slot, off, env), align, lane_mask_, llvm::Constant::getNullValue(vt), e.name);
        return B.CreateAlignedLoad(vt, element_ptr(slot, off, env), align, e.name);
      }
      // A read that moves `stride` elements a lane (a strided convolution's input): the
      // elements it spans in one load, then every stride-th. Masked, it reads only the
      // elements its lanes take, so nothing past the last one. LLVM had made these gathers,
      // which it takes apart into one load per lane on AMD's cores.
      const unsigned wide = unsigned(lanes * stride);
      auto* wt = llvm::FixedVectorType::get(st, wide);
      std::vector<int> pick;
      for (int l = 0; l < lanes; ++l) pick.push_back(int(l * stride));
      std::vector<int> spread(wide);
      for (unsigned j = 0; j < wide; ++j) spread[j] = j % unsigned(stride) == 0 ? int(j / unsigned(stride)) : lanes;
      llvm::Value* taken =
          lane_mask_ ? lane_mask_ : llvm::ConstantInt::getTrue(llvm::FixedVectorType::get(B.getInt1Ty(), unsigned(lanes)));
      llvm::Value* mask = B.CreateShuffleVector(taken, llvm::Constant::getNullValue(taken->getType()), spread);
      llvm::Value* all = B.CreateMaskedLoad(wt, element_ptr(slot, off, env), align, mask, llvm::Constant::getNullValue(wt), e.name);
      return B.CreateShuffleVector(all, pick, e.name);
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

namespace {

// `e` as the `op` (min or max) of its terms, nested ones flattened.
void terms_of(const LExpr& e, LExpr::Op op, std::vector<LExpr>& out) {
  if (e.op != op) {
    out.push_back(e);
    return;
  }
  for (const LExpr& a : e.args) terms_of(a, op, out);
}

// `e` without the terms of its `op` that move with `reds`, which go to `moving`; nullopt
// when every term moves.
std::optional<LExpr> fixed_part(const LExpr& e, LExpr::Op op, const std::vector<const LoopNode*>& reds,
                                std::vector<LExpr>& moving) {
  std::vector<LExpr> terms;
  terms_of(e, op, terms);
  std::optional<LExpr> fixed;
  for (const LExpr& x : terms)
    if (moves_with(x, reds)) moving.push_back(x);
    else fixed = fixed ? LExpr::make(op, {*fixed, x}) : x;
  return fixed;
}

// Whether a register loop from `init` to `upper` runs a constant span, or a partial tile's
// (clamped at an edge), with bounds that do not move with `reds`.
bool tile_bounds(const LExpr& init, const LExpr& upper, const std::vector<const LoopNode*>& reds) {
  if (moves_with(init, reds) || moves_with(upper, reds)) return false;
  return constant_span(init, upper) || split_tile_bound(init, upper);
}

// The values `e` takes while the loops `reds` run, when their bounds are constants.
std::optional<std::pair<int64_t, int64_t>> over_reductions(const LExpr& e, const std::vector<const LoopNode*>& reds) {
  std::map<int, std::pair<int64_t, int64_t>> ranges;
  for (const LoopNode* r : reds)
    if (auto values = iterator_range(*r, ranges)) ranges[r->iter] = *values;
  return value_range(e, ranges);
}

// A register loop from `init` to `upper` whose bounds move with `reds` or start inside
// its tile (from a domain guard: a padded convolution's x runs from max(32 c, 1 - s) to
// min(32 c + 31, W - s)): the tile it runs within, its start in `init` and its end in
// `upper`, and the terms that bound it per reduction step in `from` and `to`. False when
// it has none. The tile starts at the term of the start that a term of the end lies the
// shortest constant span from (32 c); a start or end that moves in every term is the
// least or greatest value it takes while `reds` run.
bool tile_within(const std::vector<const LoopNode*>& reds, LExpr& init, LExpr& upper, std::vector<LExpr>& from,
                 std::vector<LExpr>& to) {
  std::optional<LExpr> start = fixed_part(init, LExpr::Op::Max, reds, from);
  std::optional<LExpr> end = fixed_part(upper, LExpr::Op::Min, reds, to);
  if (!start)
    if (auto v = over_reductions(init, reds)) start = LExpr::integer(v->first);
  if (!end)
    if (auto v = over_reductions(upper, reds)) end = LExpr::integer(v->second);
  if (!start || !end) return false;
  std::vector<LExpr> starts, ends;
  terms_of(*start, LExpr::Op::Max, starts);
  terms_of(*end, LExpr::Op::Min, ends);
  std::optional<std::pair<int64_t, size_t>> tile;  // its span, its start
  if (!tile_bounds(*start, *end, reds) && starts.size() > 1)
    for (size_t i = 0; i < starts.size(); ++i)
      for (const LExpr& e : ends)
        if (auto span = constant_span(starts[i], e); span && *span >= 0 && (!tile || *span < tile->first)) tile = {{*span, i}};
  if (tile) {
    for (size_t j = 0; j < starts.size(); ++j)
      if (j != tile->second) from.push_back(starts[j]);
    start = starts[tile->second];
  }
  init = *start;
  upper = *end;
  return true;
}

}  // namespace

std::optional<Emitter::RegisterTile> Emitter::plan_register_tile(const LoopNode& f) {
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
  // A register loop's bounds may also move with the reduction loops (a domain guard's
  // edge): its points outside them are masked in that reduction step (tile_within).
  RegisterTile t;
  t.reds = accumulating_loops(f);
  const LoopNode* cur = t.reds.back();
  while (cur->children.size() == 1 && cur->children[0].kind == LoopNode::Kind::For && cur->children[0].annot.register_tile) {
    cur = &cur->children[0];
    t.chain.push_back(cur);
    t.init.push_back(cur->init);
    t.upper.push_back(cur->upper);
  }
  if (t.chain.empty() || cur->children.size() != 1 || cur->children[0].kind != LoopNode::Kind::Call) return std::nullopt;
  const std::vector<const LoopNode*>& chain = t.chain;
  t.from.resize(chain.size());
  t.to.resize(chain.size());
  for (size_t i = 0; i < chain.size(); ++i)
    if (!tile_bounds(t.init[i], t.upper[i], t.reds))
      if (!tile_within(t.reds, t.init[i], t.upper[i], t.from[i], t.to[i]) || chain[i]->stride != 1) return std::nullopt;
  for (size_t i = 0; i < chain.size(); ++i) {
    auto span = constant_span(t.init[i], t.upper[i]);
    bool clamp = !span;
    if (clamp)
      if (auto bound = split_tile_bound(t.init[i], t.upper[i])) span = bound->span;
    if (!span || *span < 0 || (clamp && chain[i]->stride != 1)) return std::nullopt;
    t.trips.push_back(*span / chain[i]->stride + 1);
    t.clamped.push_back(clamp);
  }
  for (size_t i = 0; i < chain.size(); ++i) {
    if (!t.clamped[i]) continue;
    if (chain[i]->annot.vector_width > 1 && i + 1 == chain.size() && t.trips[i] % chain[i]->annot.vector_width) return std::nullopt;
    for (size_t j = i + 1; j < chain.size(); ++j)
      for (const LExpr* e : {&t.init[j], &t.upper[j]})
        if (iter_coefficient(*e, chain[i]->iter) != std::optional<int64_t>(0)) return std::nullopt;
  }
  for (size_t i = 0; i < chain.size(); ++i)  // the register loops' first values are computed outside the reductions
    if (moves_with(t.init[i], t.reds) || moves_with(t.upper[i], t.reds)) return std::nullopt;
  t.call = &cur->children[0];
  const LoopNode& call = *t.call;
  const PolyStmt& ps = nest_.stmts[size_t(call.stmt)];
  t.sem = stmt_semantics(def_, ps);
  if (!t.sem.combines || t.sem.op != ast::ReduceOp::Sum || !scalar_type_is_float(t.sem.type)) return std::nullopt;
  stmt_ = &def_.stmts[size_t(ps.source_stmt)];
  const Expr& rhs = stmt_->value();

  // Derivatives of the statement's index values along the reduction and the lanes.
  t.vloop = chain.back()->annot.vector_width > 1 ? chain.back() : nullptr;
  for (const LExpr& a : call.args) t.dv.push_back(t.vloop ? iter_coefficient(a, t.vloop->iter) : std::optional<int64_t>(0));
  // The vector loop's lanes: full vectors, then for the rest of its constant trip one
  // vector of the next power of two, masked when the rest is not one: 26 columns at
  // width 8 are 8 + 8 + 8 + 2 lanes, at width 16 one full vector and 10 of 16 lanes.
  t.lanes = t.vloop && t.vloop->stride == 1 ? t.vloop->annot.vector_width : 1;
  for (const LoopNode* r : t.reds)  // the accumulators must not move with a reduction loop
    for (int d = 0; d < stmt_->lhs_rank; ++d)
      if (iter_coefficient(call.args[size_t(d)], r->iter) != std::optional<int64_t>(0)) return std::nullopt;
  int64_t lhs_dv = 0;
  for (int d = 0; d < stmt_->lhs_rank; ++d) {
    if (!t.dv[size_t(d)]) return std::nullopt;
    if (*t.dv[size_t(d)] == 0) continue;
    auto stride = read_strides(t.sem.lhs_tensor)[size_t(d)];  // a local temporary's: its buffer's
    if (!stride) return std::nullopt;  // accumulators a run-time stride apart: ordinary loops
    lhs_dv += *t.dv[size_t(d)] * *stride;
  }
  // Lanes a stride apart in the left-hand side (a weight gradient's dW(k, c, r, s) along c)
  // are gathered once before the reduction loops and scattered once after them.
  if (t.lanes > 1 && (lhs_dv < 1 || !vectorisable(rhs, t.sem.type, t.dv))) t.lanes = 1;
  t.lhs_stride = t.lanes > 1 ? lhs_dv : 1;
  if (t.lanes == 1 && !vectorisable(rhs, t.sem.type, std::vector<std::optional<int64_t>>(t.dv.size(), 0))) return std::nullopt;
  // Moving bounds mask a vector's loads; a scalar point would read past them.
  if (t.moving() && (t.lanes == 1 || t.lhs_stride != 1 || !reads_stay_inside(t))) return std::nullopt;

  tile_points(t);
  if (t.points.size() > 64) return std::nullopt;  // more accumulators than registers: not a register tile
  return t;
}

void Emitter::tile_points(RegisterTile& t) {
  // Every point of the register tile, as offsets from the loops' first values, and the
  // lanes it covers along the vector loop.
  t.points = {{}};
  for (size_t c = 0; c < t.chain.size(); ++c) {
    const LoopNode* l = t.chain[c];
    std::vector<TilePoint> next;
    for (const TilePoint& p : t.points)
      for (int64_t v = 0; v < t.trips[c];) {
        // A rest that is not a power of two is one masked vector: 14 columns are one
        // 16-lane operation with two lanes off, not 8 + 4 + 2 lanes in three.
        int64_t w = l == t.vloop ? std::min<int64_t>(t.lanes, t.trips[c] - v) : 1, width = 1;
        while (width < w) width *= 2;
        // Moving bounds mask every vector's loads: a rest of one lane is a masked pair.
        if (l == t.vloop && t.moving()) width = std::max<int64_t>(width, 2);
        next.push_back(p);
        next.back().at.push_back(v * l->stride);
        if (l == t.vloop) next.back().lanes = int(width), next.back().active = int(w);
        v += w;
      }
    t.points = std::move(next);
  }
}

bool Emitter::emit_register_tile(const LoopNode& f, Env& env) {
  std::optional<RegisterTile> plan = plan_register_tile(f);
  if (!plan) return false;
  const RegisterTile& t = *plan;
  // The register loops' first values do not depend on the reduction loops: computed once,
  // outside them, where the accumulators are loaded.
  std::vector<llvm::Value*> first(t.chain.size()), last(t.chain.size());
  for (const LoopNode* r : t.reds) env.iters[size_t(r->iter)] = B.getInt64(0);
  locate(f, env);
  fetch_ahead(env);
  for (size_t i = 0; i < t.chain.size(); ++i) {
    first[i] = as_int(lx(t.init[i], env));
    if (t.clamped[i]) last[i] = as_int(lx(t.upper[i], env));
    env.iters[size_t(t.chain[i]->iter)] = first[i];
  }
  for (const LoopNode* r : t.reds) env.iters[size_t(r->iter)] = nullptr;

  // A partial tile along a row loop (26 rows in tiles of 8 end with 2) runs as exact
  // tiles of 4, 2 and 1 rows, as the bits of its row count say, not as a full tile whose
  // rows past the edge redo the last one: that was 8 rows of work for 2. The first
  // clamped loop that is not the masked vector loop splits; any other stays clamped.
  size_t s = 0;
  while (s < t.chain.size() && (!t.clamped[s] || (t.masked() && t.chain[s] == t.vloop))) ++s;
  if (s == t.chain.size()) {
    emit_tile(t, first, last, env);
    return true;
  }
  RegisterTile whole = t;
  whole.clamped[s] = false;
  llvm::Value* count = B.CreateSub(B.CreateAdd(last[s], B.getInt64(1)), first[s], "rows");
  count = B.CreateBinaryIntrinsic(llvm::Intrinsic::smax, count, B.getInt64(0));
  auto* full = llvm::BasicBlock::Create(C, "tile.full", env.fn);
  auto* part = llvm::BasicBlock::Create(C, "tile.part", env.fn);
  auto* done = llvm::BasicBlock::Create(C, "tile.done", env.fn);
  B.CreateCondBr(B.CreateICmpSGE(count, B.getInt64(uint64_t(t.trips[s]))), full, part);
  B.SetInsertPoint(full);
  emit_tile(whole, first, last, env);
  B.CreateBr(done);
  B.SetInsertPoint(part);
  int64_t bit = 1;
  while (bit * 2 < t.trips[s]) bit *= 2;
  std::vector<llvm::Value*> at = first;
  for (; bit >= 1; bit /= 2) {
    RegisterTile sub = whole;
    sub.trips[s] = bit;
    tile_points(sub);
    llvm::Value* has = B.CreateAnd(count, B.getInt64(uint64_t(bit)));
    auto* run = llvm::BasicBlock::Create(C, "tile.rows" + std::to_string(bit), env.fn);
    auto* next = llvm::BasicBlock::Create(C, "tile.after" + std::to_string(bit), env.fn);
    B.CreateCondBr(B.CreateICmpNE(has, B.getInt64(0)), run, next);
    B.SetInsertPoint(run);
    emit_tile(sub, at, last, env);
    B.CreateBr(next);
    B.SetInsertPoint(next);
    at[s] = B.CreateNSWAdd(at[s], has);
  }
  B.CreateBr(done);
  B.SetInsertPoint(done);
  return true;
}

void Emitter::emit_tile(const RegisterTile& t, const std::vector<llvm::Value*>& first,
                        const std::vector<llvm::Value*>& last, Env& env) {
  const std::vector<const LoopNode*>& reds = t.reds;
  const std::vector<const LoopNode*>& chain = t.chain;
  const std::vector<TilePoint>& points = t.points;
  const LoopNode& call = *t.call;
  const StmtSemantics& sem = t.sem;
  const Expr& rhs = stmt_->value();
  int lanes = t.lanes;
  bool masked = t.masked();
  llvm::Value* kept = nullptr;  // at_point's lanes whose accumulators are loaded and stored
  auto at_point = [&](const TilePoint& p) {
    lane_mask_ = nullptr;
    if (p.active < p.lanes) {
      std::vector<llvm::Constant*> on;
      for (int j = 0; j < p.lanes; ++j) on.push_back(B.getInt1(j < p.active));
      lane_mask_ = llvm::ConstantVector::get(on);
    }
    for (size_t i = 0; i < chain.size(); ++i) {
      llvm::Value* v = B.CreateNSWAdd(first[i], B.getInt64(uint64_t(p.at[i])));
      if (masked && chain[i] == t.vloop) {  // lane j runs iff v + j <= last
        lane_mask_ = B.CreateICmpSLE(lane_values(v, lanes, 1), B.CreateVectorSplat(unsigned(lanes), last[i]));
      }
      if (t.clamped[i]) v = B.CreateBinaryIntrinsic(llvm::Intrinsic::smin, v, last[i]);
      env.iters[size_t(chain[i]->iter)] = v;
    }
    env.stmt_args.clear();
    for (const LExpr& a : call.args) env.stmt_args.push_back(as_int(lx(a, env)));
    std::vector<llvm::Value*> lhs(env.stmt_args.begin(), env.stmt_args.begin() + stmt_->lhs_rank);
    kept = lane_mask_;
    if (t.moving()) {
      // With moving bounds, a point of the tile need not be a point of the domain at all:
      // its accumulator is only loaded and stored (`kept`) where it lies inside the
      // left-hand tensor and inside the loops' bounds that do not move: those past a
      // start that was left to the lanes (max(32 c, 20) started at 20) are another
      // tile's. lanes_inside adds the moving bounds to the loads' masks in each step.
      both(kept, lanes_inside(t, p.lanes, env, true));
      const TensorLayout& out = layout_.tensors[size_t(sem.lhs_tensor)];
      for (size_t d = 0; d < lhs.size(); ++d) {
        llvm::Value* at = lane_values(lhs[d], p.lanes, *t.dv[d]);
        llvm::Value* lo = sym(out.lo[d], env), *hi = sym(out.lo[d] + out.extent[d] - SymExpr(1), env);
        both(kept, B.CreateICmpSGE(at, B.CreateVectorSplat(unsigned(p.lanes), lo)));
        both(kept, B.CreateICmpSLE(at, B.CreateVectorSplat(unsigned(p.lanes), hi)));
      }
    }
    return read_offset_of(sem.lhs_tensor, lhs, env);
  };
  llvm::Type* st = reg_type(sem.type);
  auto acc_type = [&](const TilePoint& p) -> llvm::Type* {
    return p.lanes > 1 ? llvm::FixedVectorType::get(st, unsigned(p.lanes)) : st;
  };
  llvm::Align align(scalar_type_bytes(sem.type));

  // The accumulators' addresses do not depend on the reduction loops (plan_register_tile).
  for (const LoopNode* r : reds) env.iters[size_t(r->iter)] = B.getInt64(0);
  for (size_t i = 0; i < chain.size(); ++i) env.iters[size_t(chain[i]->iter)] = first[i];
  std::vector<llvm::Value*> addresses, masks;
  locate(call, env);
  for (const auto& p : points) {
    addresses.push_back(element_ptr(read_slot(sem.lhs_tensor), at_point(p), env));
    masks.push_back(kept);
  }
  // Where the reduction loops start at its first summed-index values (and run at all),
  // the tile begins every element's reduction: its accumulators start from the identity,
  // and the initialisation's nest was not emitted (fold_initialisations). Known when the
  // code is generated unless a cache tile loop outside splits the reduction.
  llvm::Value* begins = nullptr;
  if (folds_.starts_from_identity[size_t(call.stmt)]) {
    begins = B.getTrue();
    for (const LoopNode* r : reds) {
      llvm::Value* lo = as_int(lx(r->init, env));
      begins = B.CreateAnd(begins, B.CreateICmpSLE(lo, as_int(lx(r->upper, env))));
      env.iters[size_t(r->iter)] = lo;
    }
    at_point(points[0]);
    const std::vector<int64_t>& at = nest_.stmts[size_t(call.stmt)].reduction_first;
    for (size_t d = 0; d < at.size(); ++d)
      begins = B.CreateAnd(begins, B.CreateICmpEQ(env.stmt_args[size_t(stmt_->lhs_rank) + d], B.getInt64(uint64_t(at[d]))));
  }
  for (const LoopNode* r : reds) env.iters[size_t(r->iter)] = nullptr;
  std::vector<llvm::Value*> accs;
  // A strided left-hand side: each vector accumulator's lanes by address (a null mask
  // takes every lane).
  auto lane_addresses = [&](size_t i) {
    std::vector<llvm::Constant*> steps;
    for (int j = 0; j < points[i].lanes; ++j) steps.push_back(B.getInt64(uint64_t(j * t.lhs_stride)));
    return B.CreateGEP(st, addresses[i], llvm::ConstantVector::get(steps));
  };
  for (size_t i = 0; i < points.size(); ++i) {
    llvm::Type* type = acc_type(points[i]);
    llvm::Value* acc = nullptr;
    if (points[i].lanes > 1 && t.lhs_stride != 1)
      acc = B.CreateMaskedGather(type, lane_addresses(i), align, masks[i], llvm::Constant::getNullValue(type), "acc");
    else if (masks[i]) acc = B.CreateMaskedLoad(type, addresses[i], align, masks[i], llvm::Constant::getNullValue(type), "acc");
    else acc = B.CreateAlignedLoad(type, addresses[i], align, "acc");
    if (begins) acc = B.CreateSelect(begins, llvm::ConstantFP::get(type, sem.identity_f), acc, "acc");
    accs.push_back(acc);
  }
  accs = carry_accumulators(reds, 0, accs, env, [&](const std::vector<llvm::Value*>& in) {
    llvm::FastMathFlags fmf;
    fmf.setAllowContract();
    fmf.setAllowReassoc();
    locate(call, env);
    std::vector<llvm::Value*> out;
    for (size_t i = 0; i < points.size(); ++i) {
      at_point(points[i]);
      // Where bounds move, only the lanes inside them this step load and sum.
      llvm::Value* inside = lanes_inside(t, points[i].lanes, env);
      both(lane_mask_, inside);
      llvm::Value* v = vexpr(rhs, env, points[i].lanes, t.dv);
      llvm::IRBuilderBase::FastMathFlagGuard guard(B);
      B.setFastMathFlags(fmf);
      llvm::Value* sum = B.CreateFAdd(in[i], v, "acc");
      out.push_back(inside ? B.CreateSelect(lane_mask_, sum, in[i], "acc") : sum);
    }
    return out;
  });
  locate(call, env);
  for (size_t i = 0; i < points.size(); ++i)
    if (points[i].lanes > 1 && t.lhs_stride != 1) B.CreateMaskedScatter(accs[i], lane_addresses(i), align, masks[i]);
    else if (masks[i]) B.CreateMaskedStore(accs[i], addresses[i], align, masks[i]);
    else B.CreateAlignedStore(accs[i], addresses[i], align);
  lane_mask_ = nullptr;
  for (const LoopNode* l : chain) env.iters[size_t(l->iter)] = nullptr;
}

bool Emitter::reads_stay_inside(const RegisterTile& t) {
  // A masked point's loads read nothing, but a read checked when it runs checks lane 0's
  // address whatever the mask, and a read the same for every lane is one unmasked load:
  // on a row outside its moving bounds (y + r - 1 at r = 0, y = 0) it would read outside
  // the tensor. Neither may move with a loop whose bounds move.
  std::vector<int> moving;  // the register loops' iterators whose bounds move
  for (size_t i = 0; i < t.chain.size(); ++i)
    if (!t.from[i].empty() || !t.to[i].empty()) moving.push_back(t.chain[i]->iter);
  // A read's subscripts are its constraints from dimension 0 on, one after another.
  std::vector<std::vector<const AccessConstraint*>> reads;
  for (const AccessConstraint& c : stmt_->constraints) {
    if (!c.subscript) continue;
    if (!c.affine || c.data_dependent || c.checked_when_run()) return false;
    if (c.dim == 0 || reads.empty()) reads.emplace_back();
    reads.back().push_back(&c);
  }
  auto moves = [&](const AccessConstraint& c, auto&& along) {
    for (auto [idx, coef] : c.coefs)
      if (coef != 0 && along(size_t(idx))) return true;
    return false;
  };
  for (const auto& read : reads) {
    bool uniform = true;  // the same element for every lane
    for (const AccessConstraint* c : read)
      uniform = uniform && !moves(*c, [&](size_t idx) { return t.dv[idx] != std::optional<int64_t>(0); });
    if (!uniform) continue;
    for (const AccessConstraint* c : read)
      for (int it : moving)
        if (moves(*c, [&](size_t idx) { return iter_coefficient(t.call->args[idx], it) != std::optional<int64_t>(0); }))
          return false;
  }
  return true;
}

llvm::Value* Emitter::lane_values(llvm::Value* first, int lanes, int64_t step) {
  std::vector<llvm::Constant*> steps;
  for (int j = 0; j < lanes; ++j) steps.push_back(B.getInt64(uint64_t(j * step)));
  return B.CreateAdd(B.CreateVectorSplat(unsigned(lanes), first), llvm::ConstantVector::get(steps));
}

// LLVM unswitches the loops whose bounds move, so each step's bounds, and the lane masks
// made from them, become constants, and its x86 back end lowers a blend of an FMA and the
// accumulator under a constant mask as an FMA into a fresh register, a masked move and a
// copy, where under a mask in a register it makes one masked FMA. Each bound passes
// through an empty assembly statement, which nothing folds through: the masks are made
// at run time, once a step (loops hoist it out of the summed loops inside), at no cost
// where the bound was not a constant anyway. Without mask registers (AVX2) constant masks
// are the cheaper (immediate blends, plain loads), and the optimiser releases the bounds
// (kHeldValueConstraints).
llvm::Value* Emitter::hold(llvm::Value* v) {
  auto* fn = llvm::FunctionType::get(v->getType(), {v->getType()}, false);
  llvm::CallInst* held = B.CreateCall(fn, llvm::InlineAsm::get(fn, "", kHeldValueConstraints, false), {v});
  held->setDoesNotAccessMemory();  // so equal bounds merge, and loops hoist it
  held->setDoesNotThrow();
  held->addFnAttr(llvm::Attribute::WillReturn);
  return held;
}

void Emitter::both(llvm::Value*& mask, llvm::Value* c) {
  if (c) mask = mask ? B.CreateAnd(mask, c) : c;
}

llvm::Value* Emitter::lanes_inside(const RegisterTile& t, int lanes, Env& env, bool fixed_only) {
  if (!t.moving()) return nullptr;
  llvm::Value* inside = nullptr;
  for (size_t i = 0; i < t.chain.size(); ++i) {
    if (t.from[i].empty() && t.to[i].empty()) continue;
    // The loop's value at each lane (at_point set its iterator to lane 0's; a row loop's
    // is the same at every lane).
    llvm::Value* at = lane_values(env.iters[size_t(t.chain[i]->iter)], lanes, t.chain[i] == t.vloop ? 1 : 0);
    auto bound = [&](const LExpr& e, bool lower) {
      if (fixed_only && moves_with(e, t.reds)) return;
      llvm::Value* b = B.CreateVectorSplat(unsigned(lanes), hold(as_int(lx(e, env))));
      both(inside, lower ? B.CreateICmpSGE(at, b) : B.CreateICmpSLE(at, b));
    };
    for (const LExpr& e : t.from[i]) bound(e, true);
    for (const LExpr& e : t.to[i]) bound(e, false);
  }
  return inside;
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

namespace {

bool touches(const SemaStmt& st, int t) { return st.lhs_tensor == t || st.reads(t); }

}  // namespace

void Emitter::fold_initialisations() {
  // A reduction's initialisation in a top-level nest of its own (the contraction presets'
  // Min fusion) writes the whole output once more than the reduction does; the register
  // tiles that then load it can start from the identity instead. That holds when the
  // schedule reaches every element first where the summed indices take the values in
  // PolyStmt::reduction_first, every call of the reduction runs in a register tile, and
  // no other statement touches the tensor between the two.
  const std::vector<LoopNode>& top = nest_.root.children;
  folds_.starts_from_identity.assign(nest_.stmts.size(), false);
  folds_.skipped.assign(top.size(), false);
  std::vector<std::vector<int>> calls(top.size());  // the statements each top-level nest calls
  for (size_t n = 0; n < top.size(); ++n) calls[n] = calls_below(top[n]);
  for (size_t s = 1; s < nest_.stmts.size(); ++s) {
    const PolyStmt& ps = nest_.stmts[s];
    int init = int(s) - 1;
    if (ps.reduction_first.empty() || !nest_.stmts[size_t(init)].is_init) continue;
    const SemaStmt& st = def_.stmts[size_t(ps.source_stmt)];
    if (st.reads(st.lhs_tensor)) continue;
    auto has = [&](size_t n, int k) { return std::find(calls[n].begin(), calls[n].end(), k) != calls[n].end(); };
    size_t at = top.size(), last = 0;
    bool ok = true;
    for (size_t n = 0; n < top.size(); ++n) {
      if (has(n, init)) {
        ok = ok && at == top.size() && std::count(calls[n].begin(), calls[n].end(), init) == std::ptrdiff_t(calls[n].size());
        at = n;
      }
      if (has(n, int(s))) {
        ok = ok && at < n;
        last = n;
      }
    }
    if (!ok || at == top.size()) continue;
    for (size_t n = at + 1; ok && n <= last; ++n) {
      for (int k : calls[n])
        ok = ok && (k == int(s) || !touches(def_.stmts[size_t(nest_.stmts[size_t(k)].source_stmt)], st.lhs_tensor));
      ok = ok && register_tiles_hold(top[n], int(s));
    }
    if (!ok) continue;
    folds_.starts_from_identity[s] = true;
    folds_.skipped[at] = true;
  }
  stmt_ = nullptr;
}

bool Emitter::register_tiles_hold(const LoopNode& n, int s) {
  auto all = [&](const std::vector<LoopNode>& nodes) {
    for (const LoopNode& c : nodes)
      if (!register_tiles_hold(c, s)) return false;
    return true;
  };
  switch (n.kind) {
    case LoopNode::Kind::Call: return n.stmt != s;
    case LoopNode::Kind::Pack: {  // reads below it use the buffer's strides, as emit_pack arranges
      const PackSite& p = nest_.packs[size_t(n.pack)];
      int saved = pack_of_[size_t(p.tensor)];
      pack_of_[size_t(p.tensor)] = n.pack;
      bool held = all(n.children);
      pack_of_[size_t(p.tensor)] = saved;
      return held;
    }
    case LoopNode::Kind::For:
      if (n.annot.accumulate_in_registers) {
        std::vector<int> calls = calls_below(n);
        if (std::find(calls.begin(), calls.end(), s) == calls.end()) return true;
        std::optional<RegisterTile> t = plan_register_tile(n);
        if (!t || t->call->stmt != s) return false;
        for (size_t d = size_t(stmt_->lhs_rank); d < t->call->args.size(); ++d)
          for (const LoopNode* l : t->chain)  // one start for the whole tile
            if (iter_coefficient(t->call->args[d], l->iter) != std::optional<int64_t>(0)) return false;
        return true;
      }
      return all(n.children);
    default: return all(n.children) && all(n.else_children);
  }
}

}  // namespace tcs::llvm_emit
