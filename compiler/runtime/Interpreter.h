#pragma once
// The reference interpreter: evaluates a checked def on dense tensors, statement by
// statement in textual order, exactly as LANGUAGE.md §3 and §5 say. It is the oracle that
// every compiled kernel is compared with, so it favours clarity and exact semantics over
// speed: floating-point reductions accumulate in double and round once per element.
// Out-of-range data-dependent subscripts and integer division by zero are reported as
// errors, never crashes.
#include "lang/Shapes.h"
#include "lang/Sema.h"
#include "runtime/KernelBuffers.h"
#include "support/Expected.h"

namespace tcs {

// `supplied` holds every input, plus outputs whose values an `op=` statement accumulates
// into (outputs not supplied start at zero). Returns the outputs, in declaration order of
// names. Shapes must come from shapes_evaluate(def, sizes bound from these tensors).
Expected<TensorMap> interpret(const SemaDef& def, const DefShapes& shapes, const TensorMap& supplied);

// The same, in place on buffers laid out by kernel_buffers (what a Kernel runs on).
Status interpret_buffers(const SemaDef& def, const DefShapes& shapes, std::vector<Tensor>& buffers);

}  // namespace tcs
