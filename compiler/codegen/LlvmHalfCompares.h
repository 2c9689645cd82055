#pragma once
// float16 on an x86 without AVX512-FP16: LLVM computes half vectors by converting them to
// float and back, except comparisons, minimum and maximum, which it splits into one scalar
// compare per lane (a ReLU over float16 rows took 16 compares and 40 mask operations per
// vector, and ran 11x slower than widened). LLVM's own combiner narrows a compare of
// widened halves back to half, so the widening happens after the O3 pipeline.
namespace llvm {
class Module;
}  // namespace llvm

namespace tcs {

// After optimisation, in functions whose target has no AVX512-FP16: every compare of half
// vectors compares them widened to float, and every minimum, maximum and min/max
// reduction of half vectors runs in float and narrows its result. Exact: widening a half
// is exact, and these pick one of their operands. Returns how many were rewritten.
int compare_half_vectors_in_float(llvm::Module& m);

}  // namespace tcs
