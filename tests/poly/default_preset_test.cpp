// The default preset compiles every def that checks, and its kernels compute what the
// interpreter computes: every example, and the multi-statement contractions, the
// reductions down columns and the kernels of many loops or of short rows in
// tests/data/presets, at the header's sizes and with each size set to 1 in turn (batch 1,
// 1x1 convolutions), where the scheduler drops loops the preset was chosen for.
#include <gtest/gtest.h>

#include <filesystem>

#include "Compiler.h"
#include "common/Examples.h"
#include "runtime/Compare.h"
#include "runtime/Interpreter.h"
#include "runtime/RandomInputs.h"

namespace tcs {
namespace {

std::vector<std::filesystem::path> files() {
  std::vector<std::filesystem::path> all = testing_support::example_files();
  for (const char* name : {"multi_statement.tc", "reductions.tc", "many_loops.tc", "short_rows.tc"})
    all.push_back(std::filesystem::path(TCS_TEST_DATA_DIR) / "presets" / name);
  return all;
}

class DefaultPreset : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(DefaultPreset, CompilesAndMatchesTheInterpreterAtEverySizeOne) {
  auto loaded = check_file(GetParam().string());
  ASSERT_TRUE(loaded) << loaded.error();
  std::shared_ptr<const CheckedFile> file = std::move(*loaded);
  ASSERT_FALSE(file->has_errors());
  for (const SemaDef& def : file->defs) {
    std::vector<SizeMap> sets = {{}};
    for (const std::string& p : def.size_params) sets.push_back({{p, 1}});
    for (const SizeMap& sizes : sets) {
      auto setup = kernel_setup(file, KernelSpec{def.name, sizes, {}});
      if (!setup) {  // sizes this kernel cannot take (an empty range) are not the preset's problem
        EXPECT_EQ(setup.error_kind(), ErrorKind::Sizes) << setup.error();
        EXPECT_FALSE(sizes.empty()) << def.name << " at the header's sizes: " << setup.error();
        continue;
      }
      std::string where = def.name + " at " + sizes_describe(def, setup->shapes.sizes);
      auto options = kernel_options(def, {}, &setup->shapes);
      ASSERT_TRUE(options) << where << ": " << options.error();
      auto compiled = compile_kernel(*setup, *options, CodegenChoice("cpu", {"c"}, true));
      ASSERT_TRUE(compiled) << where << ": " << compiled.error();
      // Notes are for options a user may want to change: the preset's own, at the sizes it
      // was chosen for, make none on a bundled example (its loop order once noted every
      // initialisation). A recurrence's (tests/data's rnn) fits no band and says so.
      if (sizes.empty() && GetParam().parent_path().filename() != "presets") {
        for (const std::string& note : compiled->lowering.model.notes)
          for (const char* option : {"cpu.", "tile[", "registerTile"})
            EXPECT_EQ(note.find(option), std::string::npos) << where << ": " << note;
      }
      auto inputs = random_inputs(def, setup->shapes, 11);
      ASSERT_TRUE(inputs) << where << ": " << inputs.error();
      auto want = interpret(def, setup->shapes, *inputs);
      ASSERT_TRUE(want) << where << ": " << want.error();
      auto got = compiled->kernel->run(*inputs);
      ASSERT_TRUE(got) << where << ": " << got.error();
      for (const auto& [name, t] : *want) {
        TensorComparison cmp = compare_tensors(name, got->at(name), t);
        EXPECT_TRUE(cmp.ok) << where << ": " << cmp.problem;
      }
    }
  }
}

// A loop order that does not fit a statement it could be meant for is noted: mlp2's first
// product sums over I = 1, which makes no loop. Shallower statements (the initialisations,
// the bias and ReLU) are not.
TEST(DefaultPreset, ALoopOrderIsNotedOnlyWhereItCouldApply) {
  auto loaded = check_file((std::filesystem::path(TCS_EXAMPLES_DIR) / "mlp2.tc").string());
  ASSERT_TRUE(loaded) << loaded.error();
  std::shared_ptr<const CheckedFile> file = std::move(*loaded);
  const SemaDef& def = file->defs.at(0);
  auto options = mapping_options_from_json(R"({"outerScheduleFusionStrategy": "Min", "tile": [32, 32, 32], "cpu": {"pointLoopOrder": [2, 0, 1]}})");
  ASSERT_TRUE(options) << options.error();
  auto notes = [&](const SizeMap& sizes) {
    auto setup = kernel_setup(file, KernelSpec{def.name, sizes, {}});
    EXPECT_TRUE(setup) << setup.error();
    std::string all;
    if (!setup) return all;
    auto compiled = compile_kernel(*setup, *options, CodegenChoice("cpu", {}, false));
    EXPECT_TRUE(compiled) << compiled.error();
    if (compiled)
      for (const std::string& n : compiled->lowering.model.notes) all += n + "\n";
    return all;
  };
  std::string one = notes({{"I", 1}});
  EXPECT_NE(one.find("the point band over S0 has 2 loops"), std::string::npos) << one;
  EXPECT_EQ(one.find("S0_init"), std::string::npos) << one;
  EXPECT_EQ(one.find("over S1 "), std::string::npos) << one;
  EXPECT_EQ(notes({}).find("pointLoopOrder"), std::string::npos) << notes({});
}

INSTANTIATE_TEST_SUITE_P(Files, DefaultPreset, ::testing::ValuesIn(files()),
                         [](const auto& info) { return info.param.stem().string(); });

}  // namespace
}  // namespace tcs
