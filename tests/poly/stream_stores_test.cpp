// cpu.streamStores: an output the kernel only writes, in whole aligned vectors, is stored
// past the caches (the IR's stores carry !nontemporal); an output it reads, or writes in
// part with plain stores, is not; and the results are right whether or not the output
// starts on a cache line (the second copy of the code runs then).
#include <gtest/gtest.h>

#include <cstring>

#include "Compiler.h"
#include "codegen/CpuKernel.h"
#include "lang/Frontend.h"
#include "runtime/Compare.h"
#include "runtime/Interpreter.h"
#include "runtime/KernelBuffers.h"
#include "runtime/RandomInputs.h"

namespace tcs {
namespace {

struct Compiled {
  std::shared_ptr<const CheckedFile> checked;
  Expected<CompileResult> kernel;
};

Compiled compile(const char* source, const SizeMap& sizes, const std::string& options_json) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", source);
  EXPECT_FALSE(checked->has_errors());
  const SemaDef& def = checked->defs.at(0);
  auto shapes = shapes_evaluate(def, sizes);
  EXPECT_TRUE(shapes) << shapes.error();
  auto options = mapping_options_from_json(options_json);
  EXPECT_TRUE(options) << options.error();
  return {checked, compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *options, CodegenChoice{"cpu", {"llvm"}, true})};
}

bool streams(const CompileResult& k) { return k.text("llvm").text.find("!nontemporal") != std::string::npos; }

constexpr const char* kRowScale = R"(
def scale(float(N,D) X, float(D) G) -> (Y) {
    Y(n, d) = X(n, d) * G(d) + 1.0
})";

TEST(StreamStores, AnOutputWrittenInWholeAlignedVectorsIsStoredPastTheCaches) {
  auto with = compile(kRowScale, {{"N", 8}, {"D", 256}}, R"({"cpu": {"vectorWidth": 8, "streamStores": true}})");
  ASSERT_TRUE(with.kernel) << with.kernel.error();
  EXPECT_TRUE(streams(*with.kernel));
  EXPECT_NE(with.kernel->text("llvm").text.find("llvm.x86.sse.sfence"), std::string::npos) << "no fence after the stores";
  auto without = compile(kRowScale, {{"N", 8}, {"D", 256}}, R"({"cpu": {"vectorWidth": 8}})");
  ASSERT_TRUE(without.kernel) << without.kernel.error();
  EXPECT_FALSE(streams(*without.kernel));
}

TEST(StreamStores, AnOutputTheKernelReadsOrWritesInPartIsNotStreamed) {
  // An output a second loop reads back (statements kept apart) stays in the cache.
  auto read_back = compile(R"(
def twice(float(N,D) X) -> (Y) {
    Y(n, d) = X(n, d) * 2.0
    Y(n, d) = Y(n, d) + 1.0
})",
                           {{"N", 8}, {"D", 256}},
                           R"({"outerScheduleFusionStrategy": "Min", "cpu": {"vectorWidth": 8, "streamStores": true}})");
  ASSERT_TRUE(read_back.kernel) << read_back.kernel.error();
  EXPECT_NE(read_back.kernel->text("llvm").text.find("load <8 x float>"), std::string::npos) << "Y is not read back";
  EXPECT_FALSE(streams(*read_back.kernel));
  // Rows of 56 at 16 lanes end in a masked store: the line it shares is not half streamed.
  auto ragged = compile(kRowScale, {{"N", 8}, {"D", 56}}, R"({"cpu": {"vectorWidth": 16, "streamStores": true}})");
  ASSERT_TRUE(ragged.kernel) << ragged.kernel.error();
  EXPECT_FALSE(streams(*ragged.kernel));
}

TEST(StreamStores, ResultsAreRightWhetherOrNotTheOutputStartsOnACacheLine) {
  auto c = compile(kRowScale, {{"N", 8}, {"D", 256}}, R"({"cpu": {"vectorWidth": 8, "streamStores": true}})");
  ASSERT_TRUE(c.kernel) << c.kernel.error();
  const Kernel& kernel = *c.kernel->kernel;
  auto inputs = random_inputs(kernel.def(), kernel.shapes(), 1);
  ASSERT_TRUE(inputs) << inputs.error();
  auto want = interpret(kernel.def(), kernel.shapes(), *inputs);
  ASSERT_TRUE(want) << want.error();
  auto buffers = kernel_buffers(kernel.def(), kernel.shapes(), *inputs);
  ASSERT_TRUE(buffers) << buffers.error();
  int y = kernel.def().find_tensor("Y");
  for (size_t offset : {size_t(0), sizeof(float), size_t(32)}) {  // on a line, a float past it, half a line past it
    std::vector<std::byte> shifted((*buffers)[size_t(y)].data.size() + 128);
    std::byte* out = shifted.data() + (64 - reinterpret_cast<uintptr_t>(shifted.data()) % 64) % 64 + offset;
    std::vector<void*> ptrs;
    for (Tensor& t : *buffers) ptrs.push_back(t.data.data());
    ptrs[size_t(y)] = out;
    ASSERT_TRUE(static_cast<const CpuKernel&>(kernel).run_pointers(ptrs.data()));
    Tensor got = (*buffers)[size_t(y)];
    std::memcpy(got.data.data(), out, got.data.size());
    TensorComparison cmp = compare_tensors("Y", got, want->at("Y"));
    EXPECT_TRUE(cmp.ok) << "output " << offset << " bytes past a line: " << cmp.problem;
  }
}

}  // namespace
}  // namespace tcs
