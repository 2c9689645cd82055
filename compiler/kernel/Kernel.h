#pragma once
// An executable kernel, whatever target built it: the JIT-compiled CPU code, the
// reference interpreter, later a CUDA module. Faces run it on tensors and time it through
// this interface only (kernel/Measure.h), so a new target brings its own Kernel and
// nothing else changes.
#include <string_view>
#include <vector>

#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "runtime/KernelBuffers.h"
#include "support/Expected.h"

namespace tcs {

class Kernel {
 public:
  Kernel(const SemaDef& def, DefShapes shapes) : def_(&def), shapes_(std::move(shapes)) {}
  virtual ~Kernel() = default;
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  virtual std::string_view target() const = 0;  // "cpu", "interp", ...
  // Threads for parallel loops (0: every core); targets without threads ignore it.
  virtual void set_threads(int threads) { (void)threads; }
  virtual int threads() const { return 1; }

  // One run on `buffers`: one per tensor of the def (SemaDef::tensors order), of the
  // shapes the kernel was built for (kernel_buffers makes them). This is the timed region:
  // it allocates and copies nothing. A fault (data-dependent subscript out of range,
  // integer division by zero) is a RuntimeFault error.
  virtual Status run_buffers(std::vector<Tensor>& buffers) const = 0;
  // Temporaries the code keeps in local buffers (a row of a fused softmax): it never
  // touches their tensors, which kernel_buffers then leaves empty.
  virtual std::vector<std::string> local_temporaries() const { return {}; }

  // Runs like the interpreter: copies of the supplied tensors in, outputs out.
  Expected<TensorMap> run(const TensorMap& supplied) const {
    auto buffers = kernel_buffers(*def_, shapes_, supplied, local_temporaries());
    if (!buffers) return buffers.failure();
    if (Status s = run_buffers(*buffers); !s) return s.failure();
    return kernel_outputs(*def_, std::move(*buffers));
  }

  const SemaDef& def() const { return *def_; }
  const DefShapes& shapes() const { return shapes_; }

 private:
  const SemaDef* def_;  // owned by the CheckedFile the caller keeps alive
  DefShapes shapes_;
};

}  // namespace tcs
