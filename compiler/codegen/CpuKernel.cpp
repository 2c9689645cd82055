// Optimisation (the O3 pipeline for the host CPU), assembly printing and ORC LLJIT.
#include "codegen/CpuKernel.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/AssemblyAnnotationWriter.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FormattedStream.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "codegen/LlvmEmitter.h"
#include "codegen/LlvmHalfCompares.h"
#include "codegen/LlvmMath.h"
#include "codegen/LlvmStreamStores.h"
#include "codegen/X86Extensions.h"
#include "runtime/ThreadPool.h"

namespace tcs {

struct CpuKernel::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  int32_t (*entry)(void**, void*, const int64_t*) = nullptr;
  std::vector<int64_t> sizes;  // the kernel's sizes in SemaDef::size_params order
  std::vector<std::string> local_temporaries;  // kept in local buffers (PackSite::local)
};

CpuKernel::CpuKernel(const SemaDef& def, const DefShapes& shapes, std::unique_ptr<Impl> impl)
    : Kernel(def, shapes), impl_(std::move(impl)) {
  set_threads(0);
}
CpuKernel::~CpuKernel() = default;

std::vector<std::string> CpuKernel::local_temporaries() const { return impl_->local_temporaries; }

void CpuKernel::set_threads(int threads) {
  if (threads < 1) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  if (!pool_ || pool_->threads() != threads) pool_ = std::make_unique<ThreadPool>(threads);
}

int CpuKernel::threads() const { return pool_->threads(); }

Status CpuKernel::run_pointers(void* const* buffers, ThreadPool* pool) const {
  int32_t err = impl_->entry(const_cast<void**>(buffers), pool ? pool : pool_.get(), impl_->sizes.data());
  if (err & kErrSubscriptOutOfRange)
    return Error{ErrorKind::RuntimeFault, "a data-dependent subscript of '" + def().name +
                 "' was out of range (the compiled kernel read the first element instead)"};
  if (err & kErrDivisionByZero) return Error{ErrorKind::RuntimeFault, "integer division by zero in '" + def().name + "'"};
  if (err & kErrSizes)
    return Error{ErrorKind::Sizes, "the sizes break a condition of '" + def().name + "' (size_conditions); nothing ran"};
  return success();
}

Status CpuKernel::run_buffers(std::vector<Tensor>& buffers) const {
  std::vector<void*> ptrs;
  ptrs.reserve(buffers.size());
  for (Tensor& b : buffers) ptrs.push_back(b.data.data());
  return run_pointers(ptrs.data());
}

namespace {

// LLVM's two instruction schedulers build a dependence graph over each basic block, with
// a cost quadratic in its memory operations. A register tile unrolled into one block (a
// convolution's 4 x 64 tile: 3,800 instructions) spent 96 % of a 4.3 s code generation
// there. Past 200 nodes the graph is reduced to chains, as LLVM itself does past 1,000;
// code generation of that tile takes 0.7 s, and the kernel times of sgemm, bmm, KRU3,
// MLP3, conv, group conv and softmax stayed within the noise of five runs each. The
// tuner compiles thousands of candidates and the IDE recompiles on every edit.
void limit_scheduling_regions() {
  llvm::StringMap<llvm::cl::Option*>& options = llvm::cl::getRegisteredOptions();
  if (auto it = options.find("dag-maps-huge-region"); it != options.end()) it->second->addOccurrence(0, it->first(), "200");
}

void init_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    limit_scheduling_regions();
  });
}

Expected<std::unique_ptr<llvm::TargetMachine>> host_machine(llvm::orc::JITTargetMachineBuilder& jtmb) {
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto tm = jtmb.createTargetMachine();
  if (!tm) return Error{ErrorKind::Internal, "LLVM cannot target this CPU: " + llvm::toString(tm.takeError())};
  return std::move(*tm);
}

// Values the register tile holds from folding (kHeldValueConstraints) are let go where
// the target has no mask registers: there constant lane masks become immediate blends and
// plain loads, and a padded convolution's masks made at run time (variable blends, masked
// loads) ran it 1.25x slower (AVX2 code of conv2d_same at 8 x 64 x 28^2 -> 64 on a Zen 4).
void release_held_values(llvm::Module& m, const llvm::TargetMachine& tm) {
  if (tm.getTargetTriple().isX86() && tm.getMCSubtargetInfo()->checkFeatures("+avx512f")) return;
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& b : f)
      for (llvm::Instruction& i : llvm::make_early_inc_range(b))
        if (auto* call = llvm::dyn_cast<llvm::CallInst>(&i))
          if (auto* held = llvm::dyn_cast<llvm::InlineAsm>(call->getCalledOperand());
              held && held->getAsmString().empty() && held->getConstraintString() == kHeldValueConstraints) {
            call->replaceAllUsesWith(call->getArgOperand(0));
            call->eraseFromParent();
          }
}

void optimise(llvm::Module& m, llvm::TargetMachine& tm) {
  release_held_values(m, tm);
  for (llvm::Function& f : m) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", tm.getTargetCPU());
    f.addFnAttr("target-features", tm.getTargetFeatureString());
  }
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, mam);
  // The vector loops' masked calls of far trigonometric arguments become a branch each.
  llvm::ModulePassManager inline_far;
  inline_far.addPass(llvm::AlwaysInlinerPass());
  inline_far.run(m, mam);
  drop_far_lanes_variants(m);
  // A reduction's `reassoc` lets the vectoriser split it over several accumulators; once
  // that is done it must go. The instruction selector would use it to fold every
  // `acc + x * y` of those accumulators, and the tree that sums them, into one chain of
  // dependent FMAs: a layernorm's variance and a matvec's rows ran at one FMA per 4
  // cycles. Without it each accumulator keeps its own chain; only the order of the
  // additions, fixed by now, differs from what the flag allowed.
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& b : f)
      for (llvm::Instruction& i : b)
        if (llvm::isa<llvm::BinaryOperator>(i) && i.getType()->isFPOrFPVectorTy()) i.setHasAllowReassoc(false);
  mark_streaming_stores(m);
  compare_half_vectors_in_float(m);
}

// Prints the IR with an origin marker before each instruction; the markers become the
// line map and are removed from the text.
class OriginAnnotator : public llvm::AssemblyAnnotationWriter {
 public:
  void emitInstructionAnnot(const llvm::Instruction* i, llvm::formatted_raw_ostream& os) override {
    unsigned line = 0;
    if (const llvm::DebugLoc& dl = i->getDebugLoc()) line = dl.getLine();
    os << "\x01" << line << "\n";
  }
};

// Maps a C line (1-based) to its origin.
LineOrigin origin_of_c_line(const GeneratedText& c, unsigned line) {
  if (line == 0 || line > c.lines.size()) return {};
  return c.lines[line - 1];
}

GeneratedText ir_text(const llvm::Module& m, const GeneratedText& c) {
  std::string raw;
  llvm::raw_string_ostream os(raw);
  OriginAnnotator annot;
  m.print(os, &annot);
  os.flush();
  GeneratedText out;
  std::istringstream in(raw);
  std::string line;
  LineOrigin pending{};
  bool have_pending = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '\x01') {
      pending = origin_of_c_line(c, unsigned(std::stoul(line.substr(1))));
      have_pending = true;
      continue;
    }
    out.text += line + "\n";
    out.lines.push_back(have_pending ? pending : LineOrigin{});
    have_pending = false;
  }
  return out;
}

// Assembly: `.loc FILE LINE` directives set the origin of the instructions after them.
// Debug sections at the end are dropped: they are for debuggers, not for reading.
GeneratedText asm_text(const std::string& raw, const GeneratedText& c) {
  GeneratedText out;
  std::istringstream in(raw);
  std::string line;
  LineOrigin current{};
  while (std::getline(in, line)) {
    if (line.find(".section\t.debug_") != std::string::npos) break;
    size_t loc = line.find(".loc\t");
    if (loc != std::string::npos) {
      std::istringstream fields(line.substr(loc + 5));
      unsigned file = 0, l = 0;
      fields >> file >> l;
      current = origin_of_c_line(c, l);
    }
    out.text += line + "\n";
    out.lines.push_back(current);
  }
  return out;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// The module as an object file for `cpu`, with the bundle's prefix on every symbol that
// crosses the object's boundary; everything else becomes internal.
Status emit_object(const llvm::Module& module, const CpuCodegenRequest& req, CpuCodegenResult& result) {
  std::unique_ptr<llvm::Module> m = llvm::CloneModule(module);
  const std::string& prefix = req.object_prefix;
  for (llvm::Function& f : *m)
    if (!f.isDeclaration() && f.getName() != kKernelSymbol) f.setLinkage(llvm::GlobalValue::InternalLinkage);
  std::string triple = llvm::sys::getProcessTriple();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) return Error{ErrorKind::Internal, "LLVM has no target for " + triple + ": " + error};
  std::string cpu = req.object_cpu == "host" ? llvm::sys::getHostCPUName().str() : req.object_cpu;
  if (!std::unique_ptr<llvm::MCSubtargetInfo>(target->createMCSubtargetInfo(triple, "generic", ""))->isCPUStringValid(cpu))
    return Error{ErrorKind::Options, "LLVM does not know the CPU '" + cpu + "' (try 'host', 'x86-64-v3', 'znver4', 'skylake-avx512')"};
  std::string features;
  if (req.object_cpu == "host") {
    llvm::SubtargetFeatures f;
    for (const auto& [feature, on] : llvm::sys::getHostCPUFeatures()) f.AddFeature(feature, on);
    features = f.getString();
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(triple, cpu, features, options, llvm::Reloc::PIC_,
                                                                      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!tm) return Error{ErrorKind::Internal, "LLVM cannot target the CPU '" + cpu + "'"};
  // The extensions a build checks before it links the object (ObjectCode::cpu_features):
  // those of codegen/X86Extensions.h this target machine has.
  result.object.cpu = cpu;
  result.object.local_temporaries = local_temporaries(*req.nest);
  if (llvm::Triple(triple).isX86())  // elsewhere these names mean nothing (and LLVM would warn)
    for (const X86Extension& e : kX86Extensions)
      if (tm->getMCSubtargetInfo()->checkFeatures("+" + std::string(e.name))) result.object.cpu_features.emplace_back(e.name);
  m->setDataLayout(tm->createDataLayout());
  m->setTargetTriple(triple);
  optimise(*m, *tm);
  // The prefix only now: the vectoriser finds a builtin's vector variants by the name the
  // call was emitted with (LlvmTrig.cpp).
  for (llvm::Function& f : *m) {
    std::string name = f.getName().str();
    if (name == kKernelSymbol) {
      f.setName(prefix + "_entry");
    } else if (name == "tcs_rt_parallel_for") {
      f.setName(prefix + "_parallel_for");
    } else if (name.rfind("tcs_builtin_", 0) == 0) {
      result.object.builtins.push_back(name.substr(12));
      f.setName(prefix + "_builtin_" + name.substr(12));
    }
  }
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
    return Error{ErrorKind::Internal, "LLVM cannot write an object file for '" + cpu + "'"};
  pm.run(*m);
  result.object.bytes = std::string(buffer.str());
  return success();
}

FoldedInitialisations cpu_folded_initialisations(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest,
                                                 bool symbolic_sizes) {
  LlvmEmitRequest er{&def, &shapes, &nest, nullptr, def.name + ".c", symbolic_sizes};
  return folded_initialisations(er);
}

Expected<CpuCodegenResult> cpu_codegen(const CpuCodegenRequest& req) {
  init_llvm();
  CpuCodegenResult result;
  auto t0 = std::chrono::steady_clock::now();
  const GeneratedText& c = *req.c_text;
  auto ctx = std::make_unique<llvm::LLVMContext>();
  // Optimisation remarks and warnings ("loop not vectorised") are not the user's errors;
  // keep them off stderr.
  ctx->setDiagnosticHandlerCallBack([](const llvm::DiagnosticInfo*, void*) {});
  LlvmEmitRequest er{req.def, req.shapes, req.nest, req.node_lines, req.def->name + ".c", req.symbolic_sizes, req.folds};
  std::unique_ptr<llvm::Module> module = emit_llvm_module(*ctx, er);
  std::string verify;
  llvm::raw_string_ostream vos(verify);
  if (llvm::verifyModule(*module, &vos)) return Error{ErrorKind::Internal, "internal error: invalid LLVM IR generated: " + vos.str()};
  result.timings.push_back({"llvm-ir", ms_since(t0)});

  if (!req.object_cpu.empty())
    if (Status s = emit_object(*module, req, result); !s) return s.failure();

  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) return Error{ErrorKind::Internal, "LLVM cannot detect this CPU: " + llvm::toString(jtmb.takeError())};
  auto tm = host_machine(*jtmb);
  if (!tm) return tm.failure();
  module->setDataLayout((*tm)->createDataLayout());
  module->setTargetTriple((*tm)->getTargetTriple().str());

  t0 = std::chrono::steady_clock::now();
  optimise(*module, **tm);
  result.timings.push_back({"llvm-O3", ms_since(t0)});
  if (req.emit_llvm) result.llvm_ir = ir_text(*module, c);
  if (req.emit_asm) {
    t0 = std::chrono::steady_clock::now();
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(*module);
    llvm::SmallString<0> buffer;
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager pm;
    if ((*tm)->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
      return Error{ErrorKind::Internal, "internal error: LLVM cannot print assembly for this CPU"};
    pm.run(*copy);
    result.assembly = asm_text(std::string(buffer.str()), c);
    result.timings.push_back({"asm", ms_since(t0)});
  }
  if (!req.build_kernel) return result;

  t0 = std::chrono::steady_clock::now();
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  if (!jit) return Error{ErrorKind::Internal, "cannot start the JIT: " + llvm::toString(jit.takeError())};
  llvm::orc::JITDylib& lib = (*jit)->getMainJITDylib();
  const llvm::DataLayout& dl = (*jit)->getDataLayout();
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(dl.getGlobalPrefix());
  if (!process) return Error{ErrorKind::Internal, "JIT: " + llvm::toString(process.takeError())};
  lib.addGenerator(std::move(*process));
  llvm::orc::MangleAndInterner mangle((*jit)->getExecutionSession(), dl);
  llvm::orc::SymbolMap symbols;
  auto define = [&](const std::string& name, void* address) {
    symbols[mangle(name)] = {llvm::orc::ExecutorAddr::fromPtr(address), llvm::JITSymbolFlags::Exported};
  };
  define("tcs_rt_parallel_for", reinterpret_cast<void*>(&tcs_rt_parallel_for));
  for (const llvm::Function& f : *module)
    if (f.isDeclaration())
      if (void* a = builtin_symbol_address(f.getName().str())) define(f.getName().str(), a);
  if (auto err = lib.define(llvm::orc::absoluteSymbols(std::move(symbols))))
    return Error{ErrorKind::Internal, "JIT: " + llvm::toString(std::move(err))};
  if (auto err = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(ctx))))
    return Error{ErrorKind::Internal, "JIT: " + llvm::toString(std::move(err))};
  auto sym = (*jit)->lookup(kKernelSymbol);
  if (!sym) return Error{ErrorKind::Internal, "JIT: " + llvm::toString(sym.takeError())};
  auto impl = std::make_unique<CpuKernel::Impl>();
  impl->entry = sym->toPtr<int32_t (*)(void**, void*, const int64_t*)>();
  for (const std::string& p : req.def->size_params) impl->sizes.push_back(req.shapes->sizes.at(p));
  impl->local_temporaries = local_temporaries(*req.nest);
  impl->jit = std::move(*jit);
  result.kernel = std::make_shared<CpuKernel>(*req.def, *req.shapes, std::move(impl));
  result.timings.push_back({"jit", ms_since(t0)});
  return result;
}

TargetIdentity cpu_host_identity() {
  std::string model;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; model.empty() && std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      model = line.substr(line.find(':') + 1);
      model.erase(0, model.find_first_not_of(" \t"));
    }
  if (model.empty()) model = "unknown processor";
  std::vector<std::string> features;
  for (const auto& [feature, on] : llvm::sys::getHostCPUFeatures())
    if (on) features.push_back(feature.str());
  std::sort(features.begin(), features.end());
  std::string cpu = llvm::sys::getHostCPUName().str();
  int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  bool avx512 = std::find(features.begin(), features.end(), "avx512f") != features.end();
  bool avx2 = std::find(features.begin(), features.end(), "avx2") != features.end();

  TargetIdentity id;
  id.target = "cpu";
  id.description = model + " (" + cpu + (avx512 ? ", AVX-512" : avx2 ? ", AVX2" : "") + "), " + std::to_string(cores) +
                   (cores == 1 ? " core" : " cores") + ", LLVM " + LLVM_VERSION_STRING;
  id.fingerprint = "cpu;model=" + model + ";llvm-cpu=" + cpu + ";cores=" + std::to_string(cores) + ";llvm=" + LLVM_VERSION_STRING +
                   ";features=";
  for (size_t i = 0; i < features.size(); ++i) id.fingerprint += (i ? "," : "") + features[i];
  return id;
}

}  // namespace tcs
