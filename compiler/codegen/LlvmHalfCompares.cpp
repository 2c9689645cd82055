#include "codegen/LlvmHalfCompares.h"

#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

namespace tcs {

namespace {

bool half_vector(const llvm::Type* t) {
  const auto* v = llvm::dyn_cast<llvm::VectorType>(t);
  return v && v->getElementType()->isHalfTy();
}

// The intrinsics that pick one of their operands (or a NaN), elementwise or across lanes.
bool picks_an_operand(llvm::Intrinsic::ID id) {
  switch (id) {
    case llvm::Intrinsic::maximum:
    case llvm::Intrinsic::minimum:
    case llvm::Intrinsic::maxnum:
    case llvm::Intrinsic::minnum:
    case llvm::Intrinsic::vector_reduce_fmax:
    case llvm::Intrinsic::vector_reduce_fmin:
    case llvm::Intrinsic::vector_reduce_fmaximum:
    case llvm::Intrinsic::vector_reduce_fminimum: return true;
    default: return false;
  }
}

llvm::Type* as_float(llvm::Type* t) {
  auto* v = llvm::cast<llvm::VectorType>(t);
  return llvm::VectorType::get(llvm::Type::getFloatTy(t->getContext()), v->getElementCount());
}

}  // namespace

int compare_half_vectors_in_float(llvm::Module& m) {
  int rewritten = 0;
  for (llvm::Function& f : m) {
    if (f.isDeclaration() || f.getFnAttribute("target-features").getValueAsString().contains("+avx512fp16")) continue;
    std::vector<llvm::Instruction*> work;
    for (llvm::BasicBlock& b : f)
      for (llvm::Instruction& i : b) {
        if (auto* cmp = llvm::dyn_cast<llvm::FCmpInst>(&i); cmp && half_vector(cmp->getOperand(0)->getType()))
          work.push_back(&i);
        else if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&i);
                 call && picks_an_operand(call->getIntrinsicID()) && half_vector(call->getArgOperand(0)->getType()))
          work.push_back(&i);
      }
    for (llvm::Instruction* i : work) {
      llvm::IRBuilder<> B(i);
      auto widen = [&](llvm::Value* v) { return B.CreateFPExt(v, as_float(v->getType())); };
      llvm::Value* replacement = nullptr;
      if (auto* cmp = llvm::dyn_cast<llvm::FCmpInst>(i)) {
        replacement = B.CreateFCmp(cmp->getPredicate(), widen(cmp->getOperand(0)), widen(cmp->getOperand(1)));
      } else {
        auto* call = llvm::cast<llvm::IntrinsicInst>(i);
        std::vector<llvm::Value*> args;
        for (llvm::Value* a : call->args()) args.push_back(widen(a));
        llvm::Value* wide = B.CreateIntrinsic(call->getIntrinsicID(), {args[0]->getType()}, args);
        if (auto* op = llvm::dyn_cast<llvm::Instruction>(wide)) op->copyFastMathFlags(call);
        replacement = B.CreateFPTrunc(wide, call->getType());
      }
      if (auto* op = llvm::dyn_cast<llvm::Instruction>(replacement)) op->copyMetadata(*i);
      i->replaceAllUsesWith(replacement);
      i->eraseFromParent();
      ++rewritten;
    }
  }
  // The half intrinsics replaced leave declarations nothing calls.
  std::vector<llvm::Function*> unused;
  for (llvm::Function& f : m)
    if (f.isDeclaration() && f.isIntrinsic() && f.use_empty() && picks_an_operand(f.getIntrinsicID())) unused.push_back(&f);
  for (llvm::Function* f : unused) f->eraseFromParent();
  return rewritten;
}

}  // namespace tcs
