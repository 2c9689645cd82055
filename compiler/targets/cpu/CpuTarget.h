#pragma once
// The CPU target: cpu-marks and pack after tiling; readable C, LLVM IR, x86 assembly and
// an ORC-JIT kernel (codegen/CText, codegen/Llvm*, codegen/CpuKernel).
#include "targets/Target.h"

namespace tcs {

Target cpu_target();

}  // namespace tcs
