#pragma once
// The buffers a kernel runs on, shared by the interpreter and compiled kernels: the
// supplied tensors (checked against the shapes and types the def needs), zeros for
// outputs and temporaries not supplied; and the outputs taken back afterwards.
#include <map>
#include <string>
#include <vector>

#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "runtime/Tensor.h"
#include "support/Expected.h"

namespace tcs {

using TensorMap = std::map<std::string, Tensor, std::less<>>;

// One buffer per tensor of the def, in SemaDef::tensors order. Errors name the tensor:
// a missing input, a wrong shape or type, a buffer that cannot be allocated. Temporaries
// named in `untouched` (the kernel keeps them in local buffers) get an empty tensor.
Expected<std::vector<Tensor>> kernel_buffers(const SemaDef& def, const DefShapes& shapes, const TensorMap& supplied,
                                             const std::vector<std::string>& untouched = {});

// The outputs among `buffers`, by name.
TensorMap kernel_outputs(const SemaDef& def, std::vector<Tensor> buffers);

}  // namespace tcs
