#pragma once
// The x86 extensions LLVM's code generation may use for a kernel, with where a CPU reports
// each (cpuid leaf, subleaf, register, bit) and the register state the operating system
// must save for it (XCR0 bits). One table for two readers: codegen lists the extensions an
// object was compiled with (ObjectCode::cpu_features, by LLVM's names), and an exported
// bundle's build tests them with cpuid itself (export/CpuCheck), so GCC or Clang of any
// version can build that test: __builtin_cpu_supports takes only the names a compiler
// knows, and Clang learnt f16c in version 18, so Clang 14 (Debian 12's) fell back to the C.
#include <string_view>

namespace tcs {

struct X86Extension {
  std::string_view name;  // LLVM's feature name, also __builtin_cpu_supports'
  unsigned leaf, subleaf;
  int reg;                // 0..3: eax, ebx, ecx, edx
  int bit;
  unsigned os_state;      // XCR0 bits that must be set: 0x6 (SSE and AVX state), 0xE6 (AVX-512) or 0
};

inline constexpr unsigned kAvxState = 0x6, kAvx512State = 0xE6;

// Intel's SDM volume 2, CPUID; AMD's APM volume 3 for leaf 0x80000001 (lzcnt, fma4, xop).
inline constexpr X86Extension kX86Extensions[] = {
    {"popcnt", 1, 0, 2, 23, 0},
    {"ssse3", 1, 0, 2, 9, 0},
    {"sse4.1", 1, 0, 2, 19, 0},
    {"sse4.2", 1, 0, 2, 20, 0},
    {"movbe", 1, 0, 2, 22, 0},
    {"avx", 1, 0, 2, 28, kAvxState},
    {"fma", 1, 0, 2, 12, kAvxState},
    {"f16c", 1, 0, 2, 29, kAvxState},
    {"avx2", 7, 0, 1, 5, kAvxState},
    {"bmi", 7, 0, 1, 3, 0},
    {"bmi2", 7, 0, 1, 8, 0},
    {"lzcnt", 0x80000001, 0, 2, 5, 0},
    {"fma4", 0x80000001, 0, 2, 16, kAvxState},
    {"xop", 0x80000001, 0, 2, 11, kAvxState},
    {"avxvnni", 7, 1, 0, 4, kAvxState},
    {"avxifma", 7, 1, 0, 23, kAvxState},
    {"avxvnniint8", 7, 1, 3, 4, kAvxState},
    {"avx512f", 7, 0, 1, 16, kAvx512State},
    {"avx512dq", 7, 0, 1, 17, kAvx512State},
    {"avx512ifma", 7, 0, 1, 21, kAvx512State},
    {"avx512cd", 7, 0, 1, 28, kAvx512State},
    {"avx512bw", 7, 0, 1, 30, kAvx512State},
    {"avx512vl", 7, 0, 1, 31, kAvx512State},
    {"avx512vbmi", 7, 0, 2, 1, kAvx512State},
    {"avx512vbmi2", 7, 0, 2, 6, kAvx512State},
    {"gfni", 7, 0, 2, 8, 0},
    {"vpclmulqdq", 7, 0, 2, 10, kAvxState},
    {"avx512vnni", 7, 0, 2, 11, kAvx512State},
    {"avx512bitalg", 7, 0, 2, 12, kAvx512State},
    {"avx512vpopcntdq", 7, 0, 2, 14, kAvx512State},
    {"avx512fp16", 7, 0, 3, 23, kAvx512State},
    {"avx512bf16", 7, 1, 0, 5, kAvx512State},
};

}  // namespace tcs
