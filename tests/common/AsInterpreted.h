#pragma once
// A compiled kernel's outputs on given inputs against the interpreter's, tensor by tensor.
#include <gtest/gtest.h>

#include <string>

#include "codegen/CpuKernel.h"
#include "runtime/Compare.h"
#include "runtime/Interpreter.h"

namespace tcs::testing_support {

// `where` prefixes a difference.
inline void expect_as_interpreted(const SemaDef& def, const DefShapes& shapes, const Kernel& kernel, const TensorMap& inputs,
                                  const std::string& where) {
  auto want = interpret(def, shapes, inputs);
  auto got = kernel.run(inputs);
  ASSERT_TRUE(want && got);
  for (const auto& [name, t] : *want) {
    TensorComparison cmp = compare_tensors(name, got->at(name), t);
    EXPECT_TRUE(cmp.ok) << where << cmp.problem;
  }
}

}  // namespace tcs::testing_support
