#include "runtime/KernelBuffers.h"

#include <algorithm>

namespace tcs {

namespace {
std::string describe_shape(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}
}  // namespace

Expected<std::vector<Tensor>> kernel_buffers(const SemaDef& def, const DefShapes& shapes, const TensorMap& supplied,
                                             const std::vector<std::string>& untouched) {
  std::vector<Tensor> buffers;
  for (size_t t = 0; t < def.tensors.size(); ++t) {
    const SemaTensor& T = def.tensors[t];
    const std::vector<int64_t>& shape = shapes.tensors[t].extent;
    auto it = supplied.find(T.name);
    if (it != supplied.end()) {
      if (it->second.shape != shape)
        return Error{ErrorKind::Sizes, "tensor '" + T.name + "' must have shape " + describe_shape(shape) + ", but the supplied one is " +
                     tensor_describe(it->second)};
      if (it->second.dtype != T.type)
        return Error{ErrorKind::Sizes, "tensor '" + T.name + "' must be " + std::string(scalar_type_name(T.type)) +
                     ", but the supplied one is " + tensor_describe(it->second)};
      buffers.push_back(it->second);
      continue;
    }
    if (T.role == TensorRole::Input) return Error{ErrorKind::Sizes, "input '" + T.name + "' is missing"};
    bool unused = T.role == TensorRole::Temporary && std::find(untouched.begin(), untouched.end(), T.name) != untouched.end();
    auto z = Tensor::zeros(T.type, unused ? std::vector<int64_t>{0} : shape);
    if (!z) return Error{ErrorKind::Sizes, "cannot allocate '" + T.name + "': " + z.error()};
    buffers.push_back(std::move(*z));
  }
  return buffers;
}

TensorMap kernel_outputs(const SemaDef& def, std::vector<Tensor> buffers) {
  TensorMap outputs;
  for (size_t t = 0; t < def.tensors.size(); ++t)
    if (def.tensors[t].role == TensorRole::Output) outputs[def.tensors[t].name] = std::move(buffers[t]);
  return outputs;
}

}  // namespace tcs
