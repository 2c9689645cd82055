#pragma once
// What a tuning result belongs to: one def at one set of sizes. Its key is the same
// whatever the file's whitespace, comments, `# sizes:` header or names (of the def, its
// tensors, indices and size parameters) are, and changes with the sizes, the element
// types or any operator, so a result tuned in one file serves every copy of the kernel,
// and never a different one.
#include <string>

#include "kernel/KernelSetup.h"
#include "targets/TargetIdentity.h"

namespace tcs::tuner {

struct Workload {
  std::string key;        // 16 hex digits: stable_hash of `canonical`, for people and lookups
  std::string canonical;  // the def's tokens, names replaced by their first-use order, then the sizes
  std::string structure;  // `canonical` without the sizes: the same kernel at other sizes
  std::string entry;      // the def's name in the file it came from (display only)
  std::string source;     // that def's text as written (display, export)
  std::string sizes;      // "M=128 N=64" in the file's names (display only)
  std::string signature;  // "A float32[128, 64], B float32[64, 32] -> C float32[128, 32]"
  double flops = 0;       // arithmetic operations of one run
};

Workload workload_of(const KernelSetup& kernel);

// The other half of a result's key: the machine (Target::identify) running the kernel on
// `threads` threads, timed with warm or cold caches. Options fast on two threads may not
// be on one, nor those fastest when the data sits in cache when it comes from memory
// (a small batched matmul, a layernorm), so each is tuned, stored and looked up on its own.
TargetIdentity tuning_target(const TargetIdentity& machine, int threads, bool cold = false);

}  // namespace tcs::tuner
