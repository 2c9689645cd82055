#pragma once
// Seeded random inputs for a def: floats uniform in [-1, 1) (or in [0.5, 1.5) for tensors
// fed to sqrt, log, pow or used as a divisor, so examples do not produce NaN by
// construction), integers small, and integer tensors used as subscripts drawn inside the
// bounds of every dimension they index.
#include <cstdint>

#include "lang/Shapes.h"
#include "runtime/Interpreter.h"

namespace tcs {

Expected<TensorMap> random_inputs(const SemaDef& def, const DefShapes& shapes, uint64_t seed,
                                  const TensorMap& already_supplied = {});

}  // namespace tcs
