#pragma once
// cpu.streamStores (LoopNest::stream_outputs): outputs the kernel only writes go to memory
// with non-temporal stores, which neither read a line before overwriting it nor keep it in
// the cache. On a Zen 4, a layernorm of 128 x 1024 with cold caches ran 2.5x faster so,
// and 5-10 % slower with its data warm (docs/PERFORMANCE.md, 2026-11-29).
//
// x86 has non-temporal vector stores only for addresses aligned to the vector, and LLVM's
// vectoriser will not widen a store it cannot prove so; and a kernel may be handed any
// pointer (an exported one is). So the code is emitted twice: the copy that runs when every
// output starts on a cache line knows that and streams; the other is the usual code. Which
// stores stream is decided after the O3 pipeline, when the vector stores exist.
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class Function;
class Module;
}  // namespace llvm

namespace tcs {

// Where a streamed output must start for the streaming copy to run: a cache line.
inline constexpr unsigned kStreamedOutputAlignment = 64;

// Before optimisation: copies every function defined in `m` under a ".stream" suffix, the
// calls and references among them redirected to the copies. In the copies of `impls` (the
// functions whose first arguments are the tensors, by slot), each argument of `outputs`
// (slot, tensor name) is declared aligned to a cache line and marked for streaming. Returns
// the copy of `body`; the caller runs it only when every output is so aligned.
llvm::Function* copy_for_streaming(llvm::Module& m, llvm::Function* body, const std::vector<llvm::Function*>& impls,
                                   const std::vector<std::pair<unsigned, std::string>>& outputs);

// After optimisation (x86 only): the stores into a marked output become non-temporal when
// no instruction of the module reads that output and every store into it is a vector of
// 16, 32 or 64 bytes at an address known to be aligned to its size (else a line could be
// written half past the cache and half through it). A function with such stores ends with
// a store fence, so that the pool's "done" is not seen before the data. Returns how many
// stores were marked.
int mark_streaming_stores(llvm::Module& m);

}  // namespace tcs
