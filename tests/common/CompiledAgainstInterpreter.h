#pragma once
// A def compiled for the CPU and run on one and on two threads, each run checked against
// the interpreter: what the loop-nest pass tests share.
#include <gtest/gtest.h>

#include <string>

#include "Compiler.h"
#include "lang/Frontend.h"
#include "runtime/Compare.h"
#include "runtime/RandomInputs.h"

namespace tcs::testing_support {

struct Built {
  std::string c, ir;
  TensorMap one_thread, two_threads;
};

// The def compiled with `options` (default: the default preset) at `sizes`, run on
// `inputs` (random where not given) on one and on two threads; each run is checked
// against the interpreter.
inline Built build_and_run(const char* text, const SizeMap& sizes, const TensorMap& given = {},
                           const char* options = nullptr, bool symbolic = false) {
  std::shared_ptr<const CheckedFile> checked = check_source("k.tc", text);
  EXPECT_FALSE(checked->has_errors());
  if (checked->has_errors()) return {};
  const SemaDef& def = checked->defs.at(0);
  auto shapes = shapes_evaluate(def, sizes);
  EXPECT_TRUE(shapes) << shapes.error();
  if (!shapes) return {};
  auto o = options ? mapping_options_from_json(options) : mapping_preset("default", def, &*shapes);
  EXPECT_TRUE(o) << o.error();
  if (!o) return {};
  CodegenChoice choice{"cpu", {"c", "llvm"}, true};
  choice.symbolic_sizes = symbolic;
  auto r = compile_kernel(KernelSetup{checked, &def, {}, *shapes}, *o, choice);
  EXPECT_TRUE(r) << r.error();
  if (!r) return {};
  Built b{r->text("c").text, r->text("llvm").text, {}, {}};
  auto inputs = random_inputs(def, *shapes, 5, given);
  EXPECT_TRUE(inputs) << inputs.error();
  if (!inputs) return b;
  inputs->insert(given.begin(), given.end());
  auto want = interpret(def, *shapes, *inputs);
  EXPECT_TRUE(want) << want.error();
  if (!want) return b;
  for (int threads : {1, 2}) {
    r->kernel->set_threads(threads);
    auto got = r->kernel->run(*inputs);
    EXPECT_TRUE(got) << got.error();
    if (!got) continue;
    for (const auto& [name, w] : *want) {
      TensorComparison cmp = compare_tensors(name, got->at(name), w);
      EXPECT_TRUE(cmp.ok) << threads << " threads: " << cmp.problem << "\n" << b.c;
    }
    (threads == 1 ? b.one_thread : b.two_threads) = std::move(*got);
  }
  return b;
}

}  // namespace tcs::testing_support
