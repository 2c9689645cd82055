#pragma once
// The C program an exported bundle's build runs to learn whether this CPU has every
// extension the object was compiled with (ObjectCode::cpu_features). It reads cpuid and
// xgetbv with GNU inline assembly, so a GCC-compatible compiler (GCC, Clang) of any
// version can build it; codegen/X86Extensions.h says why and holds the table.
#include <string>
#include <vector>

namespace tcs {

// Its main and helpers, to follow an #include of the object's glue: exits 0 when the CPU
// has every extension in `features` (and the OS saves their registers). With no features
// (another architecture) it is a bare main that exits 0.
std::string cpu_check_program(const std::vector<std::string>& features);

}  // namespace tcs
