// The program an exported bundle's build runs to learn whether the machine can run the
// object (export/Export.cpp's CMake snippet), from the table of codegen/X86Extensions.h.
#include "export/CpuCheck.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "codegen/X86Extensions.h"

namespace tcs {

std::string cpu_check_program(const std::vector<std::string>& features) {
  std::vector<std::string> terms;  // each must hold
  unsigned state = 0;
  for (const std::string& f : features) {
    auto e = std::find_if(std::begin(kX86Extensions), std::end(kX86Extensions),
                          [&](const X86Extension& x) { return x.name == f; });
    if (e == std::end(kX86Extensions)) {
      terms.push_back("0 /* " + f + ": not known, so not run */");
      continue;
    }
    char call[96];
    std::snprintf(call, sizeof call, "tcs_has(0x%x, %u, %d, %d) /* %s */", e->leaf, e->subleaf, e->reg, e->bit,
                  f.c_str());
    terms.push_back(call);
    state |= e->os_state;
  }
  if (terms.empty()) return "int main(void) { return 0; }\n";
  if (state) {
    char saves[32];
    std::snprintf(saves, sizeof saves, "tcs_os_saves(0x%x)", state);
    terms.push_back(saves);
  }
  std::string test;
  for (const std::string& t : terms) test += (test.empty() ? "" : " &&\n         ") + t;
  // The helpers are static inline (no unused-function warning, which -Werror would turn
  // into a failed check and the slow C) and prefixed, clear of the kernel's own names.
  return R"(/* Whether this CPU has every extension the object was compiled with, asked of cpuid
   itself, so the compiler need not know the extensions' names. */
static __inline__ unsigned tcs_cpuid_reg(unsigned leaf, unsigned subleaf, int reg) {
  unsigned r[4];
  __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf & 0x80000000u), "c"(0u));
  if (leaf > r[0]) return 0; /* past the last leaf this CPU reports */
  __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(subleaf));
  return r[reg];
}
static __inline__ int tcs_has(unsigned leaf, unsigned subleaf, int reg, int bit) {
  return (int)((tcs_cpuid_reg(leaf, subleaf, reg) >> bit) & 1u);
}
/* Whether the operating system saves these register states (XCR0) on a context switch. */
static __inline__ int tcs_os_saves(unsigned state) {
  unsigned lo, hi;
  if (!tcs_has(1, 0, 2, 27)) return 0; /* no OSXSAVE, so no xgetbv */
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0u));
  (void)hi;
  return (lo & state) == state;
}
int main(void) {
  return ()" + test + R"() ? 0 : 1;
}
)";
}

}  // namespace tcs
