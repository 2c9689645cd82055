#include "codegen/LlvmStreamStores.h"

#include <set>

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/Local.h>

namespace tcs {

namespace {

// The argument attribute that marks an output to stream; its value is the tensor's name.
constexpr const char* kStreamAttr = "tcs.stream";
constexpr unsigned kLineBytes = kStreamedOutputAlignment;

// The marked tensor an object is, or empty.
std::string streamed_tensor(const llvm::Value* object) {
  const auto* arg = llvm::dyn_cast<llvm::Argument>(object);
  if (!arg) return "";
  llvm::Attribute a = arg->getParent()->getAttributes().getParamAttr(arg->getArgNo(), kStreamAttr);
  return a.isValid() ? a.getValueAsString().str() : "";
}

// What an instruction may read through its pointer operands: a load's address, and every
// pointer a call takes, except a call to a function of the module (its own reads are
// examined there) or the pool's parallel-for (it passes the context through).
std::vector<const llvm::Value*> read_pointers(const llvm::Instruction& i) {
  if (const auto* load = llvm::dyn_cast<llvm::LoadInst>(&i)) return {load->getPointerOperand()};
  const auto* call = llvm::dyn_cast<llvm::CallBase>(&i);
  if (!call) return {};
  const llvm::Function* callee = call->getCalledFunction();
  if (callee && (!callee->isDeclaration() || callee->getName() == "tcs_rt_parallel_for")) return {};
  std::vector<const llvm::Value*> out;
  for (const llvm::Use& arg : call->args())
    if (arg->getType()->isPointerTy()) out.push_back(arg.get());
  return out;
}

}  // namespace

llvm::Function* copy_for_streaming(llvm::Module& m, llvm::Function* body, const std::vector<llvm::Function*>& impls,
                                   const std::vector<std::pair<unsigned, std::string>>& outputs) {
  std::vector<llvm::Function*> originals;
  for (llvm::Function& f : m)
    if (!f.isDeclaration()) originals.push_back(&f);
  llvm::ValueToValueMapTy map;
  for (llvm::Function* f : originals) {
    auto* copy = llvm::Function::Create(f->getFunctionType(), f->getLinkage(), f->getName() + ".stream", m);
    map[f] = copy;
    for (size_t a = 0; a < f->arg_size(); ++a) map[f->getArg(unsigned(a))] = copy->getArg(unsigned(a));
  }
  for (llvm::Function* f : originals) {
    auto* copy = llvm::cast<llvm::Function>(map[f]);
    llvm::SmallVector<llvm::ReturnInst*, 4> returns;
    // Global changes: the copy gets debug information of its own (a subprogram belongs to
    // one function).
    llvm::CloneFunctionInto(copy, f, map, llvm::CloneFunctionChangeType::GlobalChanges, returns);
  }
  llvm::LLVMContext& c = m.getContext();
  for (llvm::Function* f : impls) {
    auto* copy = llvm::cast<llvm::Function>(map[f]);
    for (const auto& [slot, name] : outputs) {
      copy->addParamAttr(slot, llvm::Attribute::getWithAlignment(c, llvm::Align(kLineBytes)));
      copy->addParamAttr(slot, llvm::Attribute::get(c, kStreamAttr, name));
    }
  }
  return llvm::cast<llvm::Function>(map[body]);
}

int mark_streaming_stores(llvm::Module& m) {
  if (!llvm::Triple(m.getTargetTriple()).isX86()) return 0;
  // Outputs some instruction may read: their lines are wanted in the cache. An address
  // whose objects cannot all be named could be any output's.
  std::set<std::string> read;
  bool unknown = false;
  for (const llvm::Function& f : m)
    for (const llvm::BasicBlock& b : f)
      for (const llvm::Instruction& i : b)
        for (const llvm::Value* p : read_pointers(i)) {
          llvm::SmallVector<const llvm::Value*, 4> objects;
          llvm::getUnderlyingObjects(p, objects, nullptr, 0);
          for (const llvm::Value* o : objects) {
            if (std::string t = streamed_tensor(o); !t.empty()) read.insert(t);
            else if (!llvm::isa<llvm::Argument, llvm::AllocaInst, llvm::GlobalValue>(o)) unknown = true;
          }
        }
  if (unknown) return 0;

  // A tensor streams only when every store into it can: a line that a non-temporal store
  // fills in part and a plain store in part (a row's masked rest) is flushed half-written,
  // and a 2x2 max pooling with rows of 56 floats ran 3-4x slower so.
  const llvm::DataLayout& dl = m.getDataLayout();
  auto streamable = [&](const llvm::StoreInst& store) {
    uint64_t bytes = dl.getTypeStoreSize(store.getValueOperand()->getType());
    return store.getValueOperand()->getType()->isVectorTy() && bytes >= 16 && bytes <= kLineBytes &&
           (bytes & (bytes - 1)) == 0 &&  // movntps and kin: 16, 32 or 64 bytes, aligned to their size
           llvm::getKnownAlignment(const_cast<llvm::Value*>(store.getPointerOperand()), dl, &store).value() >= bytes;
  };
  std::set<std::string> refused = read;
  std::vector<llvm::StoreInst*> stores;  // into a marked tensor
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& b : f)
      for (llvm::Instruction& i : b)
        if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&i)) {
          std::string t = streamed_tensor(llvm::getUnderlyingObject(store->getPointerOperand(), 0));
          if (t.empty()) continue;
          stores.push_back(store);
          if (!streamable(*store)) refused.insert(t);
        }

  llvm::MDNode* nontemporal =
      llvm::MDNode::get(m.getContext(), llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(m.getContext()), 1)));
  std::set<llvm::Function*> fenced;
  int marked = 0;
  for (llvm::StoreInst* store : stores) {
    if (refused.count(streamed_tensor(llvm::getUnderlyingObject(store->getPointerOperand(), 0)))) continue;
    store->setAlignment(llvm::Align(dl.getTypeStoreSize(store->getValueOperand()->getType())));
    store->setMetadata(llvm::LLVMContext::MD_nontemporal, nontemporal);
    fenced.insert(store->getFunction());
    ++marked;
  }
  for (llvm::Function* f : fenced) {
    llvm::Function* sfence = llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::x86_sse_sfence);
    std::vector<llvm::ReturnInst*> returns;
    for (llvm::BasicBlock& b : *f)
      if (auto* r = llvm::dyn_cast<llvm::ReturnInst>(b.getTerminator())) returns.push_back(r);
    for (llvm::ReturnInst* r : returns) llvm::IRBuilder<>(r).CreateCall(sfence);
  }
  return marked;
}

}  // namespace tcs
