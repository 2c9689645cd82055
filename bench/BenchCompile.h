#pragma once
// What bench_cpu needs of the compiler: a bundled example checked at given sizes,
// compiled into a kernel under a preset or an options JSON, and the compile times the
// IDE's live view depends on.
#include <array>
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
  BenchDef(const std::string& example, const std::map<std::string, int64_t>& sizes);
  ~BenchDef();
  std::shared_ptr<tcs::CpuKernel> compile_preset(const std::string& preset) const;
  std::shared_ptr<tcs::CpuKernel> compile_json(const std::string& json) const;
  // Each name's position among the kernel's buffer arguments.
  std::array<int, 3> order(const std::string& a, const std::string& b, const std::string& c) const;

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
