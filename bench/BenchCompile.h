#pragma once
// What bench_cpu needs of the compiler: a comprehension file checked at given sizes,
// compiled into a kernel under a preset or an options JSON, and the compile times the
// IDE's live view depends on.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tcs {
class CpuKernel;
struct KernelSetup;
}  // namespace tcs

class BenchDef {
 public:
  // `file` in directory `dir` (the bundled examples, or bench/kernels).
  BenchDef(const std::string& dir, const std::string& file, const std::map<std::string, int64_t>& sizes);
  ~BenchDef();
  std::shared_ptr<tcs::CpuKernel> compile_preset(const std::string& preset) const;
  // Null, with the compiler's message in *error, when the options do not fit the kernel.
  std::shared_ptr<tcs::CpuKernel> compile_json(const std::string& json, std::string* error) const;
  // The tuning cache's best options for this kernel on this machine (tuner/BestOptions.h),
  // or empty; *note says which record or why none.
  std::string tuned_json(const std::string& db, int threads, std::string* note) const;
  // Whether two option JSONs (whole or partial) make one program: options that differ
  // only where this kernel has nothing to choose (a fusion strategy for one statement, a
  // vector width for a loop left scalar) lower to the same nest (loopnest/LoopNest.h).
  bool same_program(const std::string& a, const std::string& b) const;
  // The default preset's options as JSON (they can then be tried as a grid entry).
  std::string default_json() const;
  // The kernel's buffer arguments, in order: every tensor of the def (inputs, outputs,
  // then temporaries) with its element count at these sizes.
  std::vector<std::pair<std::string, int64_t>> buffers() const;

 private:
  std::unique_ptr<tcs::KernelSetup> setup_;
};

inline const std::string kCompileText = "schedule + C text, header sizes";
inline const std::string kCompileKernel = "schedule + O3 + JIT, header sizes";
inline const std::string kCompileTextLarge = "schedule + C text, M=N=K=1024";

struct CompileTiming {
  std::string what;
  double median_ms = 0;
};

// matmul.tc with the default preset, at its header sizes and at 1024^3.
std::vector<CompileTiming> measure_compile_times(int repeats);
