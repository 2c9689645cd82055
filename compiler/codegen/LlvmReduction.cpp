// A vectorised min or max reduction along its loop: `mx(n) max=! X(n, d)` over d.
//
// LLVM vectorises a float maximum (llvm.maximum, which keeps a NaN as the interpreter
// does) into one accumulator only: on x86 each step is six dependent instructions, and a
// softmax spent 40 % of its time there, ten times what the same row's sum takes. Here the
// loop is written out with several vector accumulators in flight, one masked vector for
// the last lanes and a horizontal combine at the end. Each step is the interpreter's
// `v > m ? v : m` (one vmaxps) with the NaNs seen kept apart in a mask, which turns the
// result into a NaN at the end, as the interpreter's sticky NaN would. Sums and products
// keep LLVM's vectoriser, which interleaves them well (once its accumulators are kept
// apart in the backend: codegen/CpuKernel.cpp's optimise).
#include "codegen/LlvmEmitterImpl.h"

#include "loopnest/Affine.h"

namespace tcs::llvm_emit {

namespace {
constexpr int kAccumulators = 4;
}

bool Emitter::emit_vector_reduction(const LoopNode& f, Env& env) {
  const int lanes = f.annot.vector_width;
  if (lanes < 2 || (lanes & (lanes - 1)) || f.stride != 1 || f.children.size() != 1 || f.children[0].kind != LoopNode::Kind::Call) return false;
  const LoopNode& call = f.children[0];
  const PolyStmt& ps = nest_.stmts[size_t(call.stmt)];
  StmtSemantics sem = stmt_semantics(def_, ps);
  if (!sem.combines || !scalar_type_is_float(sem.type) ||
      (sem.op != ast::ReduceOp::Max && sem.op != ast::ReduceOp::Min))
    return false;
  stmt_ = &def_.stmts[size_t(ps.source_stmt)];
  std::vector<std::optional<int64_t>> dv;  // d(statement index)/d(loop iterator)
  for (const LExpr& a : call.args) dv.push_back(iter_coefficient(a, f.iter));
  for (int d = 0; d < stmt_->lhs_rank; ++d)
    if (dv[size_t(d)] != std::optional<int64_t>(0)) return false;  // the result must stay put
  const Expr& rhs = stmt_->value();
  if (!vectorisable(rhs, sem.type, dv)) return false;

  locate(call, env);
  llvm::Type* st = reg_type(sem.type);
  const bool max = sem.op == ast::ReduceOp::Max;
  // One step: the better of each lane, ties and NaNs keeping the accumulator.
  auto better = [&](llvm::Value* acc, llvm::Value* v) {
    return B.CreateSelect(max ? B.CreateFCmpOGT(v, acc) : B.CreateFCmpOLT(v, acc), v, acc);
  };
  llvm::Value* identity = B.CreateVectorSplat(unsigned(lanes), llvm::ConstantFP::get(st, sem.identity_f));
  llvm::Value* lo = as_int(lx(f.init, env));
  llvm::Value* hi = as_int(lx(f.upper, env));
  // The statement's index values at iteration `at`.
  auto args_at = [&](llvm::Value* at) {
    env.iters[size_t(f.iter)] = at;
    env.stmt_args.clear();
    for (const LExpr& a : call.args) env.stmt_args.push_back(as_int(lx(a, env)));
  };
  // The right-hand side as a vector of `lanes` iterations from `at`.
  auto values_at = [&](llvm::Value* at) {
    args_at(at);
    return vexpr(rhs, env, lanes, dv);
  };
  // A loop from `start` taking `step` iterations a time while they all run, carrying the
  // accumulators; returns them and the first iteration it did not take.
  auto strided = [&](llvm::Value* start, int64_t step, std::vector<llvm::Value*> accs) {
    llvm::BasicBlock* pre = B.GetInsertBlock();
    auto* body = llvm::BasicBlock::Create(C, "red.body", env.fn);
    auto* exit = llvm::BasicBlock::Create(C, "red.exit", env.fn);
    auto fits = [&](llvm::Value* i) { return B.CreateICmpSLE(B.CreateNSWAdd(i, B.getInt64(uint64_t(step - 1))), hi); };
    B.CreateCondBr(fits(start), body, exit);
    B.SetInsertPoint(body);
    llvm::PHINode* iv = B.CreatePHI(i64_, 2, "red.i");
    iv->addIncoming(start, pre);
    std::vector<llvm::PHINode*> phis;
    for (llvm::Value* a : accs) {
      phis.push_back(B.CreatePHI(a->getType(), 2, "red.acc"));
      phis.back()->addIncoming(a, pre);
    }
    const size_t nan = phis.size() - 1;  // the last carries the NaNs seen
    accs.assign(phis.begin(), phis.end());
    for (size_t k = 0; k < nan && int64_t(k) * lanes < step; ++k) {
      llvm::Value* v = values_at(B.CreateNSWAdd(iv, B.getInt64(uint64_t(int64_t(k) * lanes))));
      accs[k] = better(phis[k], v);
      accs[nan] = B.CreateOr(accs[nan], B.CreateFCmpUNO(v, v));
    }
    llvm::Value* next = B.CreateNSWAdd(iv, B.getInt64(uint64_t(step)));
    llvm::BasicBlock* last = B.GetInsertBlock();
    B.CreateCondBr(fits(next), body, exit);
    iv->addIncoming(next, last);
    for (size_t k = 0; k < phis.size(); ++k) phis[k]->addIncoming(accs[k], last);
    B.SetInsertPoint(exit);
    llvm::PHINode* out = B.CreatePHI(i64_, 2, "red.rest");
    out->addIncoming(start, pre);
    out->addIncoming(next, last);
    std::vector<llvm::Value*> merged;
    for (size_t k = 0; k < phis.size(); ++k) {
      llvm::PHINode* m = B.CreatePHI(phis[k]->getType(), 2, "red.acc");
      m->addIncoming(phis[k]->getIncomingValue(0), pre);
      m->addIncoming(accs[k], last);
      merged.push_back(m);
    }
    return std::make_pair(merged, static_cast<llvm::Value*>(out));
  };
  std::vector<llvm::Value*> accs(kAccumulators, identity);
  accs.push_back(llvm::Constant::getNullValue(llvm::FixedVectorType::get(B.getInt1Ty(), unsigned(lanes))));
  auto [wide, rest] = strided(lo, int64_t(kAccumulators) * lanes, accs);
  auto [single, tail] = strided(rest, lanes, wide);
  accs = single;

  // The last lanes: a masked vector, its missing lanes the identity.
  llvm::BasicBlock* before = B.GetInsertBlock();
  auto* edge = llvm::BasicBlock::Create(C, "red.edge", env.fn);
  auto* done = llvm::BasicBlock::Create(C, "red.done", env.fn);
  B.CreateCondBr(B.CreateICmpSLE(tail, hi), edge, done);
  B.SetInsertPoint(edge);
  std::vector<llvm::Constant*> numbers;
  for (int j = 0; j < lanes; ++j) numbers.push_back(B.getInt64(uint64_t(j)));
  llvm::Value* lane_at = B.CreateAdd(B.CreateVectorSplat(unsigned(lanes), tail), llvm::ConstantVector::get(numbers));
  lane_mask_ = B.CreateICmpSLE(lane_at, B.CreateVectorSplat(unsigned(lanes), hi));
  llvm::Value* last = B.CreateSelect(lane_mask_, values_at(tail), identity);
  lane_mask_ = nullptr;
  std::vector<llvm::Value*> with_edge = accs;
  with_edge[0] = better(accs[0], last);
  with_edge.back() = B.CreateOr(accs.back(), B.CreateFCmpUNO(last, last));
  llvm::BasicBlock* edge_end = B.GetInsertBlock();
  B.CreateBr(done);
  B.SetInsertPoint(done);
  for (size_t k : {size_t(0), accs.size() - 1}) {
    llvm::PHINode* p = B.CreatePHI(accs[k]->getType(), 2, "red.acc");
    p->addIncoming(accs[k], before);
    p->addIncoming(with_edge[k], edge_end);
    accs[k] = p;
  }

  // Accumulators pairwise, then the halves of the vector until one lane is left; a NaN
  // seen anywhere is the result.
  llvm::Value* v = accs[0];
  for (size_t k = 1; k + 1 < accs.size(); ++k) v = better(v, accs[k]);
  for (int w = lanes / 2; w >= 1; w /= 2) {
    std::vector<int> low, high;
    for (int j = 0; j < w; ++j) low.push_back(j), high.push_back(w + j);
    v = better(B.CreateShuffleVector(v, v, low), B.CreateShuffleVector(v, v, high));
  }
  llvm::Value* any_nan = B.CreateOrReduce(accs.back());
  v = B.CreateSelect(any_nan, llvm::ConstantFP::getNaN(st), B.CreateExtractElement(v, uint64_t(0)));

  // Into the left-hand element, as the statement would: old op result.
  args_at(lo);
  std::vector<llvm::Value*> lhs(env.stmt_args.begin(), env.stmt_args.begin() + stmt_->lhs_rank);
  int slot = read_slot(sem.lhs_tensor);
  llvm::Value* off = read_offset_of(sem.lhs_tensor, lhs, env);
  store(slot, off, combine(sem, load(slot, off, env), v), env);
  env.iters[size_t(f.iter)] = nullptr;
  return true;
}

}  // namespace tcs::llvm_emit
