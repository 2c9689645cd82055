// Packing (cpu.pack) in LLVM IR: the local buffer, the copy of a tensor's box into it, and
// the reads that go to the buffer below (a local temporary's writes too, with no copy). A
// copy that keeps the tensor's order is a plain loop nest LLVM vectorises; a transposing
// one walks cache-line blocks and transposes each full block in vector registers. Also the
// prefetches: a copy's next box while the register tiles run (fetch_ahead), and a loop's
// reads a few iterations on (stream_ahead).
#include "codegen/LlvmEmitterImpl.h"
#include "loopnest/Affine.h"

namespace tcs::llvm_emit {

llvm::Value* Emitter::read_offset_of(int t, const std::vector<llvm::Value*>& coords, Env& env) {
  int site = pack_of_.empty() ? -1 : pack_of_[size_t(t)];
  if (site < 0) return offset(t, coords, env);
  const PackSite& p = nest_.packs[size_t(site)];
  std::vector<int64_t> strides = p.strides();
  llvm::Value* off = B.getInt64(0);
  for (size_t d = 0; d < coords.size(); ++d) {
    llvm::Value* c = B.CreateNSWSub(coords[d], as_int(lx(p.offset[d], env)));
    off = B.CreateNSWAdd(off, B.CreateNSWMul(c, B.getInt64(uint64_t(strides[d]))));
  }
  return off;
}

namespace {

// Transposes the square matrix whose rows are `rows` (n vectors of n lanes, n a power of
// two): stage w swaps bit w of the row and column numbers where they differ, so after
// every stage element (i, k) sits at (k, i). Each stage is n two-source shuffles.
std::vector<llvm::Value*> transpose_in_registers(llvm::IRBuilder<>& B, std::vector<llvm::Value*> rows) {
  const int n = int(rows.size());
  for (int w = 1; w < n; w *= 2) {
    std::vector<int> low(static_cast<size_t>(n)), high(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) {
      low[size_t(k)] = (k & w) ? n + (k ^ w) : k;   // row i (bit w clear) takes its partner's low half
      high[size_t(k)] = (k & w) ? n + k : (k | w);  // row i | w takes row i's high half
    }
    for (int i = 0; i < n; ++i)
      if (!(i & w)) {
        llvm::Value *a = rows[size_t(i)], *b = rows[size_t(i | w)];
        rows[size_t(i)] = B.CreateShuffleVector(a, b, low);
        rows[size_t(i | w)] = B.CreateShuffleVector(a, b, high);
      }
  }
  return rows;
}

}  // namespace

void Emitter::emit_pack(const LoopNode& n, Env& env) {
  const PackSite& p = nest_.packs[size_t(n.pack)];
  int slot = int(def_.tensors.size()) + n.pack;
  llvm::Type* elem = mem_type(def_.tensors[size_t(p.tensor)].type);
  {  // the buffer: on the stack of the function running the loops (each thread its own)
    llvm::IRBuilder<> entry(&env.fn->getEntryBlock(), env.fn->getEntryBlock().begin());
    llvm::AllocaInst* buf = entry.CreateAlloca(llvm::ArrayType::get(elem, uint64_t(p.numel())), nullptr, slot_name(slot));
    buf->setAlignment(llvm::Align(64));
    env.tensors[size_t(slot)] = buf;
  }
  locate(n, env);
  if (!p.local) copy_into_buffer(n, env);  // a local one: the loops below write it first
  std::optional<FetchAhead> ahead = plan_fetch_ahead(p, env);
  if (ahead) ahead_.push_back(*ahead);
  int saved = pack_of_[size_t(p.tensor)];
  pack_of_[size_t(p.tensor)] = n.pack;
  emit_children(n.children, env);
  pack_of_[size_t(p.tensor)] = saved;
  if (ahead) ahead_.pop_back();
}

std::optional<Emitter::FetchAhead> Emitter::plan_fetch_ahead(const PackSite& p, Env& env) {
  if (p.ahead_iter < 0 || !env.iter_last[size_t(p.ahead_iter)]) return std::nullopt;
  const TensorLayout& sh = layout_.tensors[size_t(p.tensor)];
  const size_t rank = p.size.size();
  FetchAhead f;
  f.site = &p;
  f.lines_per_row = (p.size[rank - 1] + p.copy_block - 1) / p.copy_block;  // copy_block: a line's elements
  f.lines = f.lines_per_row;
  for (size_t d = 0; d + 1 < rank; ++d) f.lines *= p.size[d];
  f.per_tile = (f.lines + p.ahead_tiles - 1) / p.ahead_tiles;
  // The box at the iterators' values in env: where it starts, and whether it lies inside
  // the tensor.
  auto box = [&](llvm::Value* go) {
    llvm::Value* origin = B.getInt64(0);
    for (size_t d = 0; d < rank; ++d) {
      llvm::Value* at = B.CreateNSWSub(as_int(lx(p.offset[d], env)), sym(sh.lo[d], env));
      go = B.CreateAnd(go, B.CreateICmpSGE(at, B.getInt64(0)));
      go = B.CreateAnd(go, B.CreateICmpSLE(B.CreateNSWAdd(at, B.getInt64(uint64_t(p.size[d]))), sym(sh.extent[d], env)));
      origin = B.CreateNSWAdd(origin, B.CreateNSWMul(at, sym(sh.stride[d], env)));
    }
    return B.CreateSelect(go, origin, B.getInt64(uint64_t(-1)));
  };
  // The next box: the loop one step on, while it has one.
  llvm::Value*& iter = env.iters[size_t(p.ahead_iter)];
  llvm::Value* now = iter;
  iter = B.CreateNSWAdd(now, B.getInt64(uint64_t(p.ahead_step)));
  f.origin = box(B.CreateICmpSLE(iter, env.iter_last[size_t(p.ahead_iter)]));
  f.origin->setName("ahead.origin");
  iter = now;
  llvm::IRBuilder<> entry(&env.fn->getEntryBlock(), env.fn->getEntryBlock().begin());
  f.tiles_run = entry.CreateAlloca(i64_, nullptr, "ahead.tiles");
  B.CreateStore(B.getInt64(0), f.tiles_run);
  return f;
}

void Emitter::fetch_ahead(Env& env) {
  if (ahead_.empty()) return;
  const FetchAhead& f = ahead_.back();
  const PackSite& p = *f.site;
  const TensorLayout& sh = layout_.tensors[size_t(p.tensor)];
  llvm::Value* run = B.CreateLoad(i64_, f.tiles_run);
  B.CreateStore(B.CreateNSWAdd(run, B.getInt64(1)), f.tiles_run);
  llvm::Value* first = B.CreateNSWMul(run, B.getInt64(uint64_t(f.per_tile)));
  llvm::Value* last = B.CreateBinaryIntrinsic(llvm::Intrinsic::smin, B.CreateNSWAdd(first, B.getInt64(uint64_t(f.per_tile - 1))),
                                              B.getInt64(uint64_t(f.lines - 1)));
  // No next box: an empty range.
  last = B.CreateSelect(B.CreateICmpSLT(f.origin, B.getInt64(0)), B.getInt64(uint64_t(-1)), last);
  LoopNode loop;
  loop.kind = LoopNode::Kind::For;
  loop.loop_id = -1;
  emit_loop(loop, env, first, last, [&](llvm::Value* l) {
    // Line l: row l / lines_per_row of the box (its leading dimensions in order), then
    // a line along the last.
    const size_t rank = p.size.size();
    llvm::Value* row = B.CreateUDiv(l, B.getInt64(uint64_t(f.lines_per_row)));
    llvm::Value* at = B.CreateNSWMul(B.CreateURem(l, B.getInt64(uint64_t(f.lines_per_row))), B.getInt64(uint64_t(p.copy_block)));
    at = B.CreateNSWMul(at, sym(sh.stride[rank - 1], env));
    for (size_t d = rank - 1; d-- > 0;) {
      llvm::Value* j = B.CreateURem(row, B.getInt64(uint64_t(p.size[d])));
      row = B.CreateUDiv(row, B.getInt64(uint64_t(p.size[d])));
      at = B.CreateNSWAdd(at, B.CreateNSWMul(j, sym(sh.stride[d], env)));
    }
    llvm::Value* ptr = B.CreateGEP(mem_type(def_.tensors[size_t(p.tensor)].type), env.tensors[size_t(p.tensor)],
                                   B.CreateNSWAdd(f.origin, at));
    // Read, kept in the outer caches (locality 2): it is used when this box is done.
    B.CreateIntrinsic(llvm::Intrinsic::prefetch, {ptr_}, {ptr, B.getInt32(0), B.getInt32(2), B.getInt32(1)});
  });
}

void Emitter::stream_ahead(const LoopNode& n, Env& env) {
  // Addresses need the strides when the code is generated: with symbolic sizes, none.
  if (n.annot.fetch_ahead <= 0 || layout_.symbolic) return;
  std::vector<bool> done(def_.tensors.size(), false);
  std::vector<const LoopNode*> inner;  // the loops between n and the call, outer first
  const SemaStmt* saved_stmt = stmt_;
  std::vector<llvm::Value*> saved_args = env.stmt_args;
  // Whether read_offset computes e's address with nothing checked at run time: every
  // subscript affine, its constant part known.
  auto plain = [&](const Expr& e) {
    for (const auto& s : e.args) {
      const AccessConstraint* ac = nullptr;
      for (const AccessConstraint& c : stmt_->constraints)
        if (c.subscript == s.get()) ac = &c;
      if (!ac || !ac->affine || ac->data_dependent || ac->checked_when_run() || !ac->rest.eval(shapes_.sizes)) return false;
    }
    return true;
  };
  // Elements read `e` of `call` moves by per unit of iterator `iter`.
  auto moves_with = [&](const Expr& e, const LoopNode& call, int iter) {
    std::vector<std::optional<int64_t>> darg;
    for (const LExpr& a : call.args) darg.push_back(iter_coefficient(a, iter));
    return read_stride(e, darg);
  };
  // Elements the loops inside n cover along read `e` (a tile's row of 32, not the tensor's
  // row of 1024 n steps over); nullopt where not known.
  auto covered = [&](const Expr& e, const LoopNode& call) -> std::optional<int64_t> {
    int64_t span = 1;
    for (const LoopNode* l : inner) {
      std::optional<int64_t> moves = moves_with(e, call, l->iter), values = full_span(*l);
      if (!moves || !values) return std::nullopt;
      span += std::llabs(*moves) * *values;
    }
    return span;
  };
  std::function<void(const Expr&, const LoopNode&)> reads = [&](const Expr& e, const LoopNode& call) {
    if (e.kind == ExprKind::Access && e.ref != NameRef::Builtin) {
      int t = e.ref_id;
      std::optional<int64_t> moves = done[size_t(t)] || read_slot(t) != t || !plain(e) ? std::nullopt : moves_with(e, call, n.iter);
      if (moves && *moves > 0) {
        done[size_t(t)] = true;
        // One iteration's move, at most what the loops inside read.
        int64_t step = *moves * n.stride, elements = std::min(step, covered(e, call).value_or(step));
        int64_t elem = scalar_type_bytes(def_.tensors[size_t(t)].type);
        int64_t lines = std::min<int64_t>((elements * elem + 63) / 64, 64);
        // A plain GEP: the address may lie past the tensor (the last iterations), which a
        // prefetch may name.
        llvm::Value* here = B.CreateGEP(mem_type(def_.tensors[size_t(t)].type), env.tensors[size_t(t)], read_offset(e, env));
        llvm::Value* first = B.CreateGEP(B.getInt8Ty(), here, B.getInt64(uint64_t(n.annot.fetch_ahead * step * elem)));
        // Read, used within a few iterations: into every level (locality 3, prefetcht0).
        // Not the non-temporal hint (locality 0): on an Intel core its lines skip L2 and
        // stop the L2 streamer, and a pooling ran 2.5x slower with it than with none.
        for (int64_t l = 0; l < lines; ++l)
          B.CreateIntrinsic(llvm::Intrinsic::prefetch, {ptr_},
                            {B.CreateGEP(B.getInt8Ty(), first, B.getInt64(uint64_t(64 * l))), B.getInt32(0), B.getInt32(3), B.getInt32(1)});
      }
      return;  // a read inside a subscript makes this read's address depend on data: not fetched
    }
    for (const auto& a : e.args)
      if (a) reads(*a, call);
  };
  // Each call below n with the loops between at their first iteration.
  std::function<void(const LoopNode&)> walk = [&](const LoopNode& c) {
    switch (c.kind) {
      case LoopNode::Kind::For: {
        llvm::Value* saved = env.iters[size_t(c.iter)];
        env.iters[size_t(c.iter)] = as_int(lx(c.init, env));
        inner.push_back(&c);
        for (const LoopNode& k : c.children) walk(k);
        inner.pop_back();
        env.iters[size_t(c.iter)] = saved;
        return;
      }
      case LoopNode::Kind::If:
      case LoopNode::Kind::Block:
        for (const LoopNode& k : c.children) walk(k);
        for (const LoopNode& k : c.else_children) walk(k);
        return;
      case LoopNode::Kind::Pack: {  // reads of its tensor below go to the copy
        int t = nest_.packs[size_t(c.pack)].tensor;
        bool was = done[size_t(t)];
        done[size_t(t)] = true;
        for (const LoopNode& k : c.children) walk(k);
        done[size_t(t)] = was;
        return;
      }
      case LoopNode::Kind::Call: {
        const PolyStmt& ps = nest_.stmts[size_t(c.stmt)];
        if (ps.is_init) return;
        stmt_ = &def_.stmts[size_t(ps.source_stmt)];
        env.stmt_args.clear();
        for (const LExpr& a : c.args) env.stmt_args.push_back(as_int(lx(a, env)));
        reads(stmt_->value(), c);
        return;
      }
    }
  };
  for (const LoopNode& c : n.children) walk(c);
  stmt_ = saved_stmt;
  env.stmt_args = std::move(saved_args);
}

void Emitter::copy_into_buffer(const LoopNode& n, Env& env) {
  const PackSite& p = nest_.packs[size_t(n.pack)];
  const TensorLayout& sh = layout_.tensors[size_t(p.tensor)];
  std::vector<int64_t> pstrides = p.strides();
  int slot = int(def_.tensors.size()) + n.pack;
  llvm::Type* elem = mem_type(def_.tensors[size_t(p.tensor)].type);
  std::vector<llvm::Value*> origin;
  for (const LExpr& o : p.offset) origin.push_back(as_int(lx(o, env)));
  // Copy the part of the box inside the tensor: j_d from max(0, min_d - origin_d) to
  // min(size_d, min_d + extent_d - origin_d) - 1, in the tensor's order.
  const size_t rank = p.size.size();
  std::vector<llvm::Value*> lo(rank), hi(rank), j(rank);
  for (size_t d = 0; d < rank; ++d) {
    lo[d] = B.CreateBinaryIntrinsic(llvm::Intrinsic::smax, B.getInt64(0), B.CreateNSWSub(sym(sh.lo[d], env), origin[d]));
    llvm::Value* end = B.CreateNSWSub(sym(sh.lo[d] + sh.extent[d], env), origin[d]);
    hi[d] = B.CreateNSWSub(B.CreateBinaryIntrinsic(llvm::Intrinsic::smin, B.getInt64(uint64_t(p.size[d])), end), B.getInt64(1));
  }
  auto source_offset = [&]() {
    llvm::Value* src = B.getInt64(0);
    for (size_t k = 0; k < rank; ++k) {
      llvm::Value* c = B.CreateNSWSub(B.CreateNSWAdd(origin[k], j[k]), sym(sh.lo[k], env));
      src = B.CreateNSWAdd(src, B.CreateNSWMul(c, sym(sh.stride[k], env)));
    }
    return src;
  };
  auto buffer_offset = [&]() {
    llvm::Value* dst = B.getInt64(0);
    for (size_t k = 0; k < rank; ++k) dst = B.CreateNSWAdd(dst, B.CreateNSWMul(j[k], B.getInt64(uint64_t(pstrides[k]))));
    return dst;
  };
  LoopNode loop;
  loop.kind = LoopNode::Kind::For;
  loop.loop_id = -1;
  // Loops over every dimension but those in `skip` (held at lo), then `body`.
  std::function<void(size_t, size_t, size_t, const std::function<void()>&)> nest =
      [&](size_t d, size_t skip1, size_t skip2, const std::function<void()>& body) {
        if (d == rank) return body();
        if (d == skip1 || d == skip2) {
          j[d] = lo[d];
          return nest(d + 1, skip1, skip2, body);
        }
        emit_loop(loop, env, lo[d], hi[d], [&](llvm::Value* v) {
          j[d] = v;
          nest(d + 1, skip1, skip2, body);
        });
      };
  auto copy_element = [&]() {
    llvm::Value* v = B.CreateLoad(elem, B.CreateInBoundsGEP(elem, env.tensors[size_t(p.tensor)], source_offset()));
    B.CreateStore(v, B.CreateInBoundsGEP(elem, env.tensors[size_t(slot)], buffer_offset()));
  };
  // The tensor reads along its last dimension a, the buffer is contiguous along b.
  const size_t a = rank ? rank - 1 : 0, b = p.order.empty() ? a : size_t(p.order.back());
  if (!p.transposes()) {
    nest(0, rank, rank, copy_element);
  } else {
    // Walked whole, a transposing copy's writes a row apart map to a few cache sets and
    // miss on every element. It goes block by block instead (copy_block elements along a
    // and b, a cache line each); a full block is T vectors loaded along a, transposed in
    // registers and stored along b, a ragged edge block element by element. The blocks
    // along a run inside those along b: the T source rows a block reads are then T
    // sequential streams the prefetcher follows, where walking b inside a touched a new
    // line in each of the box's rows (a linear layer's 256) and missed on every one:
    // mlp3 128x1024 with W(out, in) packed, 155 -> 163 GFLOP/s, tmm 5 % faster.
    const int64_t T = p.copy_block;
    LoopNode block = loop;
    block.stride = T;
    auto* vt = llvm::FixedVectorType::get(elem, unsigned(T));
    llvm::Align align(elem->getPrimitiveSizeInBits() / 8);
    auto transpose_block = [&]() {
      llvm::Value *src = source_offset(), *dst = buffer_offset();
      llvm::Value* src_step = sym(sh.stride[b], env);
      std::vector<llvm::Value*> rows;
      for (int64_t t = 0; t < T; ++t) {
        llvm::Value* at = B.CreateNSWAdd(src, B.CreateNSWMul(B.getInt64(uint64_t(t)), src_step));
        rows.push_back(B.CreateAlignedLoad(vt, B.CreateInBoundsGEP(elem, env.tensors[size_t(p.tensor)], at), align));
      }
      rows = transpose_in_registers(B, rows);
      for (int64_t u = 0; u < T; ++u) {
        llvm::Value* at = B.CreateNSWAdd(dst, B.getInt64(uint64_t(u * pstrides[a])));
        B.CreateAlignedStore(rows[size_t(u)], B.CreateInBoundsGEP(elem, env.tensors[size_t(slot)], at), align);
      }
    };
    const bool vectors = (T & (T - 1)) == 0 && T > 1 && !elem->isIntegerTy(8) && sh.stride[a] == SymExpr(1);
    std::function<void(size_t)> blocks = [&](size_t k) {
      if (k == 2) {
        if (!vectors) return nest(0, rank, rank, copy_element);
        llvm::Value* full = B.CreateAnd(B.CreateICmpEQ(B.CreateNSWSub(hi[a], lo[a]), B.getInt64(uint64_t(T - 1))),
                                        B.CreateICmpEQ(B.CreateNSWSub(hi[b], lo[b]), B.getInt64(uint64_t(T - 1))));
        auto* whole = llvm::BasicBlock::Create(C, "pack.block", env.fn);
        auto* edge = llvm::BasicBlock::Create(C, "pack.edge", env.fn);
        auto* done = llvm::BasicBlock::Create(C, "pack.next", env.fn);
        B.CreateCondBr(full, whole, edge);
        B.SetInsertPoint(whole);
        nest(0, a, b, transpose_block);
        B.CreateBr(done);
        B.SetInsertPoint(edge);
        nest(0, rank, rank, copy_element);
        B.CreateBr(done);
        B.SetInsertPoint(done);
        return;
      }
      size_t d = k == 0 ? b : a;
      llvm::Value *whole_lo = lo[d], *whole_hi = hi[d];
      emit_loop(block, env, whole_lo, whole_hi, [&](llvm::Value* start) {
        lo[d] = start;
        hi[d] = B.CreateBinaryIntrinsic(llvm::Intrinsic::smin, whole_hi, B.CreateNSWAdd(start, B.getInt64(uint64_t(T - 1))));
        blocks(k + 1);
        lo[d] = whole_lo, hi[d] = whole_hi;
      });
    };
    blocks(0);
  }
}

}  // namespace tcs::llvm_emit
