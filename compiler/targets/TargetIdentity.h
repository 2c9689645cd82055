#pragma once
// Which machine and toolchain a measured time belongs to. The tuning cache keys every
// record by it, so options tuned on one CPU (or GPU, or LLVM) are never taken for
// another's: a lookup on a different machine says there is no tuned entry.
#include <string>

namespace tcs {

struct TargetIdentity {
  std::string target;       // the target's name: "cpu"
  std::string description;  // for people: "AMD EPYC 9B45 (znver5, AVX-512), 2 cores, LLVM 19.1.7"
  // Everything that makes two timings comparable, as stable text: the processor model,
  // its LLVM name and enabled features, the core count, the code generator's version.
  std::string fingerprint;
};

}  // namespace tcs
